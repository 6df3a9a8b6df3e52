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
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%attune_src_root", config.attune_src_root))
config.substitutions.append(("%attune_obj_root", config.attune_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.attune_tools_dir, config.llvm_tools_dir]
tools = ["attune-opt", "attune-compile", "attune-run", "embed_model"]
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

# /usr/bin/time with -f (GNU time) for memory tests.
if os.path.exists("/usr/bin/time"):
    import subprocess
    if subprocess.run(["/usr/bin/time", "-f", "%M", "true"], capture_output=True).returncode == 0:
        config.available_features.add("gnu-time")
