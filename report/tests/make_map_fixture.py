#!/usr/bin/env python3
"""How tests/fixture/map.json and tests/fixture/lab-map.json were made.

lab-map.json is the lab's map tool's output as it is (make map's
build/map/map.json: 1,000 seeds of 30 s, format "lab-map 1", no points; its
cells carry k, n, share and wilson95).

map.json is verified.json's `map` member as pipeline/RESULTS.md defines it,
made from that file: each cell's share = k / n and wilson95 (the Wilson score
interval at z = 1.959963984540054), and hand-chosen measured points (the
odds claims a study of 30 s rounds would have), each with its exact
(Clopper-Pearson) interval and `agree` (cp95 overlaps the cell's wilson95):

  H4-r2     450/s: 2 of 5 rounds flooded     (on the curve, agrees)
  H550-r2   550/s: 5 of 6                    (on the curve, agrees)
  H4-r2bud  450/s: 0 of 5                    (on the curve, agrees; k = 0)
  H4-fb25   450/s: 2 of 5                    (on the curve, does not agree)
  H4-brkr2  450/s: 0 of 0 quiet rounds       (on the curve, no round: agree null)
  H3-ahedge 300/s: no flood claim            (nulls, on_curve false)

    python3 report/tests/make_map_fixture.py build/map/map.json report/tests/fixture   (after make map)
"""
import json
import math
import shutil
import sys

Z = 1.959963984540054


def wilson(k, n):
    p = k / n
    d = 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return [0.0 if k == 0 else c - h, 1.0 if k == n else c + h]


def binom_cdf(k, n, p):
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def cp95(k, n):
    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if f(mid):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2
    lower = 0.0 if k == 0 else solve(lambda p: 1 - binom_cdf(k - 1, n, p) < 0.025)
    upper = 1.0 if k == n else solve(lambda p: binom_cdf(k, n, p) > 0.025)
    return [lower, upper]


POINTS = {
    "r2": [("H4-r2", 450, 2, 5, [2, 4]), ("H550-r2", 550, 5, 6, [1, 2, 3, 4, 6])],
    "r2bud": [("H4-r2bud", 450, 0, 5, [])],
    "fb25": [("H4-fb25", 450, 2, 5, [1, 3])],
    "brkr2": [("H4-brkr2", 450, 0, 0, [])],
    "ahedge": [("H3-ahedge", 300, None, None, None)],
}


def main(src, outdir):
    shutil.copyfile(src, outdir + "/lab-map.json")
    m = json.load(open(src))
    del m["format"]
    for p in m["policies"]:
        for c in p["cells"]:
            c["share"] = c["k"] / c["n"]
            c["wilson95"] = wilson(c["k"], c["n"])
        cell = {c["load"]: c for c in p["cells"]}
        pts = []
        for arm, load, k, n, rounds in POINTS.get(p["policy"], []):
            if k is None:
                pts.append({"arm": arm, "load": load, "seconds": None, "sim_k": None, "sim_n": None, "k": None,
                            "n": None, "rounds": None, "cp95": None, "on_curve": False, "agree": None})
                continue
            c = cell[load]
            ci = cp95(k, n) if n else None
            agree = None if not n else (ci[0] <= c["wilson95"][1] and c["wilson95"][0] <= ci[1])
            pts.append({"arm": arm, "load": load, "seconds": 30, "sim_k": c["k"], "sim_n": c["n"], "k": k, "n": n,
                        "rounds": rounds, "cp95": ci, "on_curve": True, "agree": agree})
        p["points"] = pts
    json.dump(m, open(outdir + "/map.json", "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
