# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ATTUNE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.attune_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "Fuzz"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%attune_src_root", config.attune_src_root))
config.substitutions.append(("%attune_obj_root", config.attune_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.attune_tools_dir, config.llvm_tools_dir]
tools = ["attune-opt", "attune-compile", "attune-import", "attune-run", "embed_model",
         "attune-format-test", "attune-stress-test"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
# FileCheck, not and count come from LLVM's tool directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.attune_tools_dir, append_path=True)

# End-to-end numerics: compile a model and compare every golden case.
config.substitutions.append(("%golden", os.path.join(config.attune_obj_root, "test", "golden")))
config.substitutions.append((
    "%check-golden",
    "%s %s --golden %s --bin %s" % (
        config.python_executable,
        os.path.join(config.attune_src_root, "scripts", "check_golden.py"),
        os.path.join(config.attune_obj_root, "test", "golden"),
        config.attune_tools_dir)))

# ONNX import end to end: export a PyTorch module, compile the .onnx, run
# it at each shape against PyTorch (scripts/check_onnx.py).
config.substitutions.append((
    "%check-onnx",
    "%s %s --bin %s" % (
        config.python_executable,
        os.path.join(config.attune_src_root, "scripts", "check_onnx.py"),
        config.attune_tools_dir)))

# /usr/bin/time with -f (GNU time) for memory tests.
if os.path.exists("/usr/bin/time"):
    import subprocess
    if subprocess.run(["/usr/bin/time", "-f", "%M", "true"], capture_output=True).returncode == 0:
        config.available_features.add("gnu-time")

# A sanitizer build (scripts/sanitize.sh): the tools and the runtime are
# instrumented. Valgrind cannot run them, and a host that does not link
# the sanitizer runtime (Python loading libattune_runtime.so) cannot load
# them; those tests say UNSUPPORTED: asan.
sanitizer = getattr(config, "attune_sanitizer", "")
sanitizer_environment = {}
if "Address" in sanitizer:
    config.available_features.add("asan")
    # Leaks are valgrind's tests' business (the tools exit through paths
    # that keep MLIR's globals); every other ASan finding fails the test.
    # The LLVM headers' allocators poison memory when compiled with ASan,
    # but Debian's libLLVM/libMLIR, which use the same memory, are not
    # instrumented: manual poisoning is ignored (allow_user_poisoning=0),
    # else those false reports drown the real ones.
    sanitizer_environment = {
        "ASAN_OPTIONS": "detect_leaks=0:allow_user_poisoning=0",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    }
config.environment.update(sanitizer_environment)

# Vulkan: the tests need a device (lavapipe in CI) and run with the Khronos
# validation layer on; any validation message fails the run.
# The probe runs with the suite's sanitizer options (above): under ASan the
# default leak check reports the driver's own allocations at exit, which
# made an instrumented attune-run look like a machine without a device.
import subprocess
probe = subprocess.run(
    [os.path.join(config.attune_tools_dir, "attune-run"), "--list-devices"],
    capture_output=True, text=True,
    env=dict(os.environ, **sanitizer_environment))
if probe.returncode == 0:
    config.available_features.add("vulkan")
    lit_config.note("Vulkan devices: " + "; ".join(probe.stdout.strip().splitlines()))
else:
    lit_config.note("no Vulkan device, the Vulkan tests are UNSUPPORTED: " +
                    (probe.stderr.strip() or probe.stdout.strip()))
config.environment["ATTUNE_VULKAN_VALIDATION"] = "1"
config.environment["ATTUNE_VULKAN_PIPELINE_CACHE"] = os.path.join(
    config.attune_obj_root, "test", "vulkan-pipelines.bin")
for var in ["XDG_RUNTIME_DIR", "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "LP_NUM_THREADS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Leak checks of repeated runs.
if os.path.exists("/usr/bin/valgrind"):
    config.available_features.add("valgrind")

# qemu-user runs the tools on an emulated older CPU (-cpu Haswell: no
# AVX-512), whatever the host: the tests of artifacts that must refuse to
# load, or must run, where the CPU lacks an extension.
import shutil
if shutil.which("qemu-x86_64"):
    config.available_features.add("qemu")

# The host CPU's ISA extensions, for the tests that run code compiled for a
# named CPU (cpu-avx2, cpu-avx512f, ...). Nothing else may depend on the
# host CPU: tests compile for the host, or for an x86-64 level it runs.
cpu_flags = set()
try:
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("flags"):
                cpu_flags = set(line.split(":", 1)[1].split())
                break
except OSError:
    pass
for flag in ["avx2", "avx512f"]:
    if flag in cpu_flags:
        config.available_features.add("cpu-" + flag)
