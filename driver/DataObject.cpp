//===- DataObject.cpp - constant data as an object file of its own --------===//

#include "driver/DataObject.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

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

namespace {
// ELF64 structures (little-endian x86-64), as in <elf.h>.
struct Elf64Header {
  unsigned char ident[16];
  uint16_t type, machine;
  uint32_t version;
  uint64_t entry, phoff, shoff;
  uint32_t flags;
  uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct Elf64Section {
  uint32_t name, type;
  uint64_t flags, addr, offset, size;
  uint32_t link, info;
  uint64_t addralign, entsize;
};
struct Elf64Symbol {
  uint32_t name;
  unsigned char info, other;
  uint16_t shndx;
  uint64_t value, size;
};
static_assert(sizeof(Elf64Header) == 64 && sizeof(Elf64Section) == 64 &&
                  sizeof(Elf64Symbol) == 24,
              "ELF64 layout");

constexpr uint32_t kProgbits = 1, kSymtab = 2, kStrtab = 3;
constexpr uint64_t kAlloc = 2;

uint64_t alignTo(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
} // namespace

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
  std::vector<Elf64Symbol> syms(1, Elf64Symbol{});
  for (const DataSymbol &s : symbols) {
    dataSize = alignTo(dataSize, s.alignment);
    dataAlign = std::max(dataAlign, s.alignment);
    offsets.push_back(dataSize);
    Elf64Symbol sym{};
    sym.name = addName(strtab, s.name);
    sym.info = (1 /*STB_GLOBAL*/ << 4) | 1 /*STT_OBJECT*/;
    sym.other = 2; // STV_HIDDEN
    sym.shndx = 1;
    sym.value = dataSize;
    sym.size = s.bytes.size();
    syms.push_back(sym);
    dataSize += s.bytes.size();
  }

  uint64_t dataOffset = alignTo(sizeof(Elf64Header), dataAlign);
  uint64_t symtabOffset = alignTo(dataOffset + dataSize, 8);
  uint64_t strtabOffset = symtabOffset + syms.size() * sizeof(Elf64Symbol);
  uint64_t shstrtabOffset = strtabOffset + strtab.size();
  uint64_t sectionsOffset = alignTo(shstrtabOffset + shstrtab.size(), 8);

  Elf64Section sections[6] = {};
  sections[1] = {rodataName, kProgbits, kAlloc, 0, dataOffset, dataSize,
                 0,          0,         dataAlign, 0};
  sections[2] = {symtabName, kSymtab, 0, 0, symtabOffset,
                 syms.size() * sizeof(Elf64Symbol),
                 3, /*first global=*/1, 8, sizeof(Elf64Symbol)};
  sections[3] = {strtabName, kStrtab, 0, 0, strtabOffset, strtab.size(),
                 0,          0,       1, 0};
  sections[4] = {shstrtabName, kStrtab, 0, 0, shstrtabOffset,
                 shstrtab.size(), 0, 0, 1, 0};
  sections[5] = {stackName, kProgbits, 0, 0, sectionsOffset, 0, 0, 0, 1, 0};

  Elf64Header header{};
  const unsigned char ident[16] = {0x7f, 'E', 'L', 'F', 2 /*64-bit*/,
                                   1 /*little-endian*/, 1 /*version*/};
  std::memcpy(header.ident, ident, sizeof(ident));
  header.type = 1;     // ET_REL
  header.machine = 62; // EM_X86_64
  header.version = 1;
  header.shoff = sectionsOffset;
  header.ehsize = sizeof(Elf64Header);
  header.shentsize = sizeof(Elf64Section);
  header.shnum = 6;
  header.shstrndx = 4;

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
  write(syms.data(), syms.size() * sizeof(Elf64Symbol));
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
