//===- DataObject.cpp - constant data as an object file of its own --------===//

#include "driver/DataObject.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mlir::attune::driver {

namespace {
/// The bytes of a global's initial value, if it is dense data in memory.
std::optional<ArrayRef<char>> denseBytes(Attribute value) {
  if (auto res = dyn_cast_or_null<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return blob->getData();
  }
  auto dense = dyn_cast_or_null<DenseElementsAttr>(value);
  if (!dense || dense.isSplat())
    return std::nullopt;
  Type element = dense.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  return dense.getRawData();
}
} // namespace

std::vector<DataSymbol> extractConstantData(ModuleOp module, size_t minBytes) {
  std::vector<DataSymbol> symbols;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    // Private constants only: the runtime reads public ones (the Vulkan
    // globals it uploads) through dlsym.
    if (!global.getConstant() || !global.getInitializerRegion().empty() ||
        (global.getLinkage() != LLVM::Linkage::Private &&
         global.getLinkage() != LLVM::Linkage::Internal))
      continue;
    std::optional<ArrayRef<char>> bytes = denseBytes(global.getValueOrNull());
    if (!bytes || bytes->size() < minBytes)
      continue;
    symbols.push_back({global.getSymName().str(), *bytes,
                       std::max<uint64_t>(global.getAlignment().value_or(1),
                                          16)});
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    global.setVisibility_(LLVM::Visibility::Hidden);
    global.setDsoLocal(true);
    global.setUnnamedAddrAttr(nullptr);
  }
  return symbols;
}

using namespace llvm::ELF;

LogicalResult writeDataObject(StringRef path, ArrayRef<DataSymbol> symbols) {
  // Sections: 0 null, 1 .rodata.attune_data, 2 .symtab, 3 .strtab,
  // 4 .shstrtab, 5 .note.GNU-stack (no executable stack).
  std::string shstrtab("\0", 1);
  auto addName = [&](std::string &table, StringRef name) {
    uint32_t at = table.size();
    table += name.str();
    table.push_back('\0');
    return at;
  };
  uint32_t rodataName = addName(shstrtab, ".rodata.attune_data");
  uint32_t symtabName = addName(shstrtab, ".symtab");
  uint32_t strtabName = addName(shstrtab, ".strtab");
  uint32_t shstrtabName = addName(shstrtab, ".shstrtab");
  uint32_t stackName = addName(shstrtab, ".note.GNU-stack");

  // The data: each symbol at its alignment.
  uint64_t dataAlign = 16, dataSize = 0;
  std::vector<uint64_t> offsets;
  std::string strtab("\0", 1);
  std::vector<Elf64_Sym> syms(1, Elf64_Sym{});
  for (const DataSymbol &s : symbols) {
    dataSize = llvm::alignTo(dataSize, s.alignment);
    dataAlign = std::max(dataAlign, s.alignment);
    offsets.push_back(dataSize);
    Elf64_Sym sym{};
    sym.st_name = addName(strtab, s.name);
    sym.setBindingAndType(STB_GLOBAL, STT_OBJECT);
    sym.st_other = STV_HIDDEN;
    sym.st_shndx = 1;
    sym.st_value = dataSize;
    sym.st_size = s.bytes.size();
    syms.push_back(sym);
    dataSize += s.bytes.size();
  }

  uint64_t dataOffset = llvm::alignTo(sizeof(Elf64_Ehdr), dataAlign);
  uint64_t symtabOffset = llvm::alignTo(dataOffset + dataSize, 8);
  uint64_t strtabOffset = symtabOffset + syms.size() * sizeof(Elf64_Sym);
  uint64_t shstrtabOffset = strtabOffset + strtab.size();
  uint64_t sectionsOffset = llvm::alignTo(shstrtabOffset + shstrtab.size(), 8);

  Elf64_Shdr sections[6] = {};
  sections[1] = {rodataName, SHT_PROGBITS, SHF_ALLOC, 0, dataOffset, dataSize,
                 0,          0,            dataAlign, 0};
  sections[2] = {symtabName, SHT_SYMTAB, 0, 0, symtabOffset,
                 syms.size() * sizeof(Elf64_Sym),
                 3, /*first global=*/1, 8, sizeof(Elf64_Sym)};
  sections[3] = {strtabName, SHT_STRTAB, 0, 0, strtabOffset, strtab.size(),
                 0,          0,          1, 0};
  sections[4] = {shstrtabName, SHT_STRTAB, 0, 0, shstrtabOffset,
                 shstrtab.size(), 0, 0, 1, 0};
  sections[5] = {stackName, SHT_PROGBITS, 0, 0, sectionsOffset, 0, 0, 0, 1, 0};

  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ElfMagic, std::strlen(ElfMagic));
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_REL;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_shoff = sectionsOffset;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 6;
  header.e_shstrndx = 4;

  std::string pathStr = path.str();
  FILE *f = std::fopen(pathStr.c_str(), "wb");
  if (!f) {
    llvm::errs() << "error: cannot write " << path << ": "
                 << std::strerror(errno) << "\n";
    return failure();
  }
  bool ok = true;
  uint64_t at = 0;
  auto write = [&](const void *p, size_t n) {
    ok &= std::fwrite(p, 1, n, f) == n;
    at += n;
  };
  auto padTo = [&](uint64_t offset) {
    static const char zeros[64] = {};
    while (ok && at < offset)
      write(zeros, std::min<uint64_t>(sizeof(zeros), offset - at));
  };
  write(&header, sizeof(header));
  for (size_t i = 0; i < symbols.size(); ++i) {
    padTo(dataOffset + offsets[i]);
    write(symbols[i].bytes.data(), symbols[i].bytes.size());
  }
  padTo(symtabOffset);
  write(syms.data(), syms.size() * sizeof(Elf64_Sym));
  write(strtab.data(), strtab.size());
  write(shstrtab.data(), shstrtab.size());
  padTo(sectionsOffset);
  write(sections, sizeof(sections));
  ok &= std::fclose(f) == 0;
  if (!ok) {
    llvm::errs() << "error: writing " << path << " failed: "
                 << std::strerror(errno) << "\n";
    return failure();
  }
  return success();
}

} // namespace mlir::attune::driver
