"""The fuzzer's child process: runs cases and reports each on stdout, one line per event:
  S <seed>        a case (or, with threads, a group of cases) starts
  R <json>        a case's result
  D               every case ran
A crash or hang leaves the parent (run.py) knowing which case was running.

  python child.py --seeds FIRST COUNT | --program FILE  [--opts JSON] [--device D]
                  [--threads N]"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", nargs=2, type=int)
    p.add_argument("--seed-list")
    p.add_argument("--program")
    p.add_argument("--opts", default="{}")
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    import ember as em
    from execute import run_cases, run_ember
    from gen import replay
    opts = json.loads(a.opts)
    # The device the campaign names, not the process default (the first GPU where there
    # is one): a case on the wrong device would be measured against the wrong bounds.
    if a.device == "cpu" and em.asarray(0).device.kind != "cpu":
        sys.exit("child: arrays go to %s, not the CPU (set EMBER_DEVICE=cpu)"
                 % em.asarray(0).device)
    out = sys.stdout

    def start(s):
        out.write("S %d\n" % s)
        out.flush()

    if a.program:
        with open(a.program) as f:
            spec = json.load(f)
        start(spec["seed"])
        r = run_ember(em, replay(spec), a.device)
        out.write("R %s\n" % json.dumps(r))
    else:
        seeds = range(a.seeds[0], a.seeds[0] + a.seeds[1]) if a.seeds else \
            [int(x) for x in a.seed_list.split(",")]
        for r in run_cases(em, seeds, opts, a.device, a.threads, start):
            out.write("R %s\n" % json.dumps(r))
            out.flush()
    if a.device != "cpu":
        em.synchronize()  # a fault still pending on the device belongs to these cases
    out.write("D\n")
    out.flush()


if __name__ == "__main__":
    main()
