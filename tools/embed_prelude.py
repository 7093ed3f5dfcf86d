#!/usr/bin/env python3
"""Regenerate src/codegen/prelude_cuda.h from src/codegen/prelude_cuda.cu.

The prelude is kept as readable CUDA source; the header holds it as a C
string so that libember needs no files at run time.  Run after editing the
.cu file:  python3 tools/embed_prelude.py"""
import pathlib

root = pathlib.Path(__file__).resolve().parent.parent
src = (root / "src/codegen/prelude_cuda.cu").read_text()
lines = ['/* Generated from prelude_cuda.cu by tools/embed_prelude.py: do not edit. */',
         '#ifndef EM_PRELUDE_CUDA_H', '#define EM_PRELUDE_CUDA_H', '',
         'static const char em_prelude_cuda[] =']
for line in src.splitlines():
    esc = line.replace("\\", "\\\\").replace('"', '\\"')
    lines.append(f'    "{esc}\\n"')
lines[-1] += ";"
lines += ["", "#endif", ""]
(root / "src/codegen/prelude_cuda.h").write_text("\n".join(lines))
