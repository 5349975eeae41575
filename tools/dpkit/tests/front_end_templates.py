"""CTest cli.front_end_templates: no numeric template reaches the program from its -O1 objects.

The program's argument parsing and rendering are compiled at -O1 (DPKIT_O1_FRONT_END,
docs/index.md), the libraries at the build type's flags. A template or inline function that
both instantiate is linked once, from the first object file that has it: the program's own
objects, which come before every library. So if an -O1 object instantiated, say, Eigen's
matrix-vector kernel or a Boost.Math special function, the libraries' calls would run that -O1
copy. This test lists the weak (COMDAT) symbols the -O1 objects define, and those the libraries
define, and fails on any Eigen or Boost symbol in both (destructors, strings and JSON helpers
shared with the libraries are harmless and allowed). A subcommand that needs such code belongs
in dpkit_cli_numeric_objects (tools/dpkit/CMakeLists.txt), which keeps the build type's flags.

usage: front_end_templates.py NM --o1 OBJECT... --libraries ARCHIVE...
"""
import subprocess
import sys


def weak_symbols(nm, files):
    out = subprocess.run([nm, "-C", "--defined-only", *files], capture_output=True, text=True,
                         check=True).stdout
    symbols = set()
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in ("W", "V", "u"):
            symbols.add(parts[2])
    return symbols


def main():
    args = sys.argv[1:]
    if len(args) < 4 or args[1] != "--o1" or "--libraries" not in args:
        sys.exit(__doc__)
    nm, split = args[0], args.index("--libraries")
    # TARGET_OBJECTS lists the precompiled header (.gch) too: object files only.
    o1 = [f for f in args[2:split] if f.endswith((".o", ".obj"))]
    libraries = args[split + 1:]
    if not o1 or not libraries:
        sys.exit("no -O1 objects or no libraries given")
    front, libs = weak_symbols(nm, o1), weak_symbols(nm, libraries)
    shared = sorted(s for s in front & libs if "Eigen::" in s or "boost::" in s)
    if shared:
        print(f"{len(shared)} Eigen/Boost symbol(s) defined both by the -O1 front end and by a "
              "library (the program would link the -O1 copy):")
        for s in shared[:40]:
            print("  " + s[:300])
        sys.exit(1)
    print(f"front_end_templates: {len(front)} weak symbols in {len(o1)} -O1 objects, "
          f"{len(front & libs)} shared with {len(libraries)} libraries, none Eigen or Boost")


if __name__ == "__main__":
    main()
