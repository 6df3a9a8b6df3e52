//===- CpuFeatures.h - the host CPU's ISA extensions ------------*- C++ -*-===//

#ifndef ATTUNE_RUNTIME_CORE_CPUFEATURES_H
#define ATTUNE_RUNTIME_CORE_CPUFEATURES_H

#include <string>
#include <vector>

namespace attune::runtime {

/// Whether this CPU (and OS) runs code using `feature`, an LLVM x86 feature
/// name from artifact::kX86IsaFeatures; if not and there is more to say than
/// "absent", `why` receives it ("not enabled by the OS", ...).
bool hostHasCpuFeature(const std::string &feature, std::string *why = nullptr);

/// Whether this runtime can test `feature`.
bool knowsCpuFeature(const std::string &feature);

/// The features of `features` this CPU lacks, comma-separated with their
/// reasons; empty if it has them all.
std::string missingCpuFeatures(const std::vector<std::string> &features);

} // namespace attune::runtime

#endif // ATTUNE_RUNTIME_CORE_CPUFEATURES_H
