#!/usr/bin/env python3
"""The matmul tile tables of skb_matmul_plan.h against tile sweeps (cuda_tile_sweep.py --json).

The choice prices candidate t on a shape as waves * (bm * bn * steps / feed + wave_ns): waves of
blocks on the GPU's multiprocessors, each taking its outputs times its part of the reduction at
`feed` multiply-adds per nanosecond, plus `wave_ns` whatever its work. A tile's feed is the
least-squares fit of its swept times, each weighed by the inverse of its time (relative errors
count alike, so that a 4096^3 call does not drown the small ones); tiles that differ only in
their block's aspect share one wave cost, fitted to all their times. A tile the sweep did not
time keeps its figures; one whose feed is 0 is never chosen (a candidate only the sweep builds).

Several sweeps are taken in turn, each fitting the tiles no sweep before it timed: a tile keeps the
figures of the first sweep that timed it, as a kernel keeps its first build, and a later sweep
adds the candidates it brings without moving the choice among the others (whose figures a fit to
another run's times would shift by that run's noise). The header is the fit of its sweeps, in
order; the choices are judged on every call of them, each time the mean over the sweeps that
timed it.

  cuda_tile_fit.py tiles                 the candidates the sweep builds, in its order, as JSON
  cuda_tile_fit.py fit SWEEP.json...     each tile's old and new figures and how far the fit
                                         misses its times, then each swept call: the tile the
                                         fitted tables pick, the fastest, the pick's time over it
      --write                            put the fitted figures into the header
      --check                            exit 1 when the header's figures are not the fit
A sweep that lists its candidates' tiles (gpu-check.sh's does) is matched to the tables by tile,
so that the tables may change between a sweep and its fit; one that does not, by index.
usage: cuda_tile_fit.py {tiles | fit SWEEP.json... [--write | --check] [--multiprocessors N]} [--header H]"""
import argparse, collections, json, math, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))
sys.path.insert(0, HERE)
TABLES = ("kMmaTiles", "kWgmmaTiles", "kFmaTiles")
FIELDS = ("bm", "bn", "bk", "wm", "wn", "stages", "feed", "wave_ns", "split", "persistent", "multicast", "staged")
DEFAULTS = (1, 0, 1, 0)  # split, persistent, multicast, staged: an entry may leave them out
SHAPE = ("bm", "bn", "bk", "wm", "wn", "stages", "split", "persistent", "multicast", "staged")  # its figures aside
# A swept call: its label, "16" or "float", batches/m/n/k, {table index: µs}, cuBLAS's µs.
Row = collections.namedtuple("Row", "label kind problem times cublas")


def with_defaults(values, length):
    """values to `length`, the trailing fields it leaves out (of split, persistent, multicast,
    staged) at their defaults: as the header's entries and older sweeps' tiles leave them out."""
    missing = length - len(values)
    return list(values) + (list(DEFAULTS[len(DEFAULTS) - missing:]) if missing > 0 else [])


class Tile:
    def __init__(self, table, values, span):
        self.table, self.span = table, span  # span: the entry's characters in the header
        for name, x in zip(FIELDS, with_defaults(values, len(FIELDS))):
            setattr(self, name, x)

    def key(self):
        return [self.table] + [getattr(self, f) for f in SHAPE]

    def entry(self):
        v = [getattr(self, f) for f in FIELDS]
        while len(v) > len(FIELDS) - len(DEFAULTS) and v[-1] == DEFAULTS[len(v) - len(FIELDS) - 1]:
            v.pop()  # as the header writes it: no trailing defaults
        return "{%s}" % ", ".join(str(x) for x in v)

    def terms(self, p, mps):
        """(work, waves): the time is work / feed + waves * wave_ns."""
        rows = math.ceil(p["m"] / (self.bm * self.multicast)) * self.multicast  # skb_mm::tiles
        tiles = p["batches"] * rows * math.ceil(p["n"] / self.bn)
        waves = math.ceil(tiles * self.split / mps)
        steps = math.ceil(math.ceil(p["k"] / self.bk) / self.split) * self.bk
        return waves * self.bm * self.bn * steps, waves

    def cost(self, p, mps):
        """skb_mm::cost in ns; None for a tile never chosen (no feed)."""
        if self.feed <= 0:
            return None
        work, waves = self.terms(p, mps)
        return waves * (work // waves // self.feed + self.wave_ns)  # a block's work rounds down, as in C++


def read_tables(text):
    """{table: [Tile]} from the header's constexpr Tile arrays."""
    tables = {}
    for name in TABLES:
        m = re.search(r"constexpr Tile %s\[\] = \{(.*?)\n\};" % name, text, re.S)
        if not m:
            raise SystemExit("cuda_tile_fit: no %s table in the header" % name)
        body_at = m.start(1)
        tables[name] = [Tile(name, [int(x) for x in e.group(1).split(",")], (body_at + e.start(), body_at + e.end()))
                        for e in re.finditer(r"\{([-\d,\s]+)\}", m.group(1))]
    return tables


def candidates(tables, kind):
    """The sweep's candidates in its order (SKB_MATMUL_TILE=i): the 16-bit calls' (mma.sync's,
    then wgmma's), or the float ones'."""
    return tables["kFmaTiles"] if kind == "float" else tables["kMmaTiles"] + tables["kWgmmaTiles"]


def export(tables):
    """What `tiles` prints: each kind's candidates, and how many of the 16-bit ones are mma.sync's
    (an sm_80 or sm_90 build has no others)."""
    return {"16": [t.key() for t in candidates(tables, "16")], "float": [t.key() for t in candidates(tables, "float")],
            "mma": len(tables["kMmaTiles"])}


def problem(rec):
    """batches, m, n, k of a MatMulV2/BatchMatMulV2 record."""
    import cuda_kernel_bench as ckb
    a, b, y = rec["inputs"][0]["shape"], rec["inputs"][1]["shape"], rec["outputs"][0]["shape"]
    attrs = {x["name"]: x.get("value") for x in rec.get("attrs", [])}
    ta, tb = (bool(attrs.get(n)) for n in ckb.MATMUL_FLAGS[rec["op_type"]])
    return {"batches": math.prod(y[:-2]), "m": a[-1] if ta else a[-2], "k": a[-2] if ta else a[-1],
            "n": b[-2] if tb else b[-1]}


def swept(sweep, tables):
    """The sweep's rows (Row), their calls found by label among tests/tools/sweep_calls.py's; a
    candidate no table holds any more is left out."""
    import cuda_kernel_bench as ckb
    from sweep_calls import sweep as calls
    known = {ckb.label(r): r for r in calls()}
    index = {}  # kind -> {swept index: table index}
    for kind in ("16", "float"):
        now = [t.key() for t in candidates(tables, kind)]
        # A sweep's tile from before a field was added lacks it, and had its default.
        then = [k and with_defaults(k, 1 + len(SHAPE)) for k in sweep.get("tiles", {}).get(kind, now)]
        index[kind] = {i: now.index(k) for i, k in enumerate(then) if k in now}
    out = []
    for row in sweep["rows"]:
        rec = known.get(row["label"])
        if rec is None:
            raise SystemExit("cuda_tile_fit: %s is not a call of tests/tools/sweep_calls.py" % row["label"])
        kind = "float" if rec["inputs"][0]["dtype"] == "float" else "16"
        times = {index[kind][int(k[4:])]: v for k, v in row["us"].items()
                 if k.startswith("tile") and v is not None and int(k[4:]) in index[kind]}
        out.append(Row(row["label"], kind, problem(rec), times, row.get("cublas_us")))
    if not any(r.times for r in out):
        raise SystemExit("cuda_tile_fit: none of the sweep's candidates is a tile of the header's tables")
    return out


def sharing(tiles):
    """The tiles in groups that share one wave cost: the same table, outputs a block (bm * bn),
    depth, stages, split, grid and stores. What a wave costs besides its work (filling the pipeline, the
    epilogue's stores) depends on those, not on the block's aspect, and the sweep's shapes do not
    tell such twins' costs apart: fitted alone, 32 x 64's and 64 x 32's differ by 9% and the
    choice follows the noise."""
    groups = {}
    for i, t in enumerate(tiles):
        groups.setdefault((t.table, t.bm * t.bn, t.bk, t.stages, t.split, t.persistent, t.multicast, t.staged),
                          []).append(i)
    return list(groups.values())


def least_squares(rows):
    """x minimising |A x - 1| for A's rows: QR by modified Gram-Schmidt on columns scaled to unit
    length (the work and wave columns differ by 10^9), then back substitution."""
    cols = len(rows[0])
    a = [[r[j] for r in rows] for j in range(cols)]  # column-major
    scale = [math.sqrt(sum(v * v for v in c)) or 1.0 for c in a]
    q = [[v / s for v in c] for c, s in zip(a, scale)]
    r = [[0.0] * cols for _ in range(cols)]
    for j in range(cols):
        for i in range(j):
            r[i][j] = sum(x * y for x, y in zip(q[i], q[j]))
            q[j] = [y - r[i][j] * x for x, y in zip(q[i], q[j])]
        r[j][j] = math.sqrt(sum(v * v for v in q[j]))
        if r[j][j] < 1e-12:
            return None  # the columns do not tell the figures apart
        q[j] = [v / r[j][j] for v in q[j]]
    qtb = [sum(q[j]) for j in range(cols)]
    x = [0.0] * cols
    for j in reversed(range(cols)):
        x[j] = (qtb[j] - sum(r[j][i] * x[i] for i in range(j + 1, cols))) / r[j][j]
    return [v / s for v, s in zip(x, scale)]


def fit(tiles, group, points, mps):
    """{i: (feed, wave_ns, worst relative miss, points)} of the weighted least squares of a group's
    times (points[i]: [(problem, µs)]): a feed a tile, one wave cost for all; {} when the group
    has fewer points than figures, or they do not tell the figures apart, or a feed comes out
    negative."""
    rows, cols = [], len(group) + 1
    for c, i in enumerate(group):
        for p, us in points.get(i, []):
            work, waves = tiles[i].terms(p, mps)
            t = us * 1000.0
            r = [0.0] * cols
            r[c], r[-1] = work / t, waves / t
            rows.append(r)
    if any(len(points.get(i, [])) < 1 for i in group) or len(rows) < cols:
        return {}
    x = least_squares(rows)
    if x is None or any(v <= 0 for v in x[:-1]):
        return {}
    wave_ns, out = max(0, round(x[-1])), {}
    for c, i in enumerate(group):
        feed = max(1, round(1.0 / x[c]))
        misses = []
        for p, us in points[i]:
            work, waves = tiles[i].terms(p, mps)
            misses.append(abs((work / feed + waves * wave_ns) / (us * 1000.0) - 1.0))
        out[i] = (feed, wave_ns, max(misses), len(misses))
    return out


def fit_untimed(tables, rows, mps):
    """Fits the tiles without figures (feed 0) that the rows time, each group of twins among them
    together; {tile: (worst relative miss, points, sweep)} of those it fitted."""
    out = {}
    for kind in ("16", "float"):
        tiles = candidates(tables, kind)
        points = {}
        for r in rows:
            for i, us in r.times.items():
                if r.kind == kind and tiles[i].feed <= 0:
                    points.setdefault(i, []).append((r.problem, us))
        for group in sharing(tiles):
            for i, (feed, wave_ns, miss, n) in fit(tiles, [i for i in group if i in points], points, mps).items():
                tiles[i].feed, tiles[i].wave_ns = feed, wave_ns
                out[tiles[i]] = (miss, n)
    return out


def refit(tables, sweeps, mps):
    """Fits the tables to the sweeps' rows in turn (fit_untimed, from tables without figures; a
    tile none of them fits keeps its own), printing each tile's old and new figures; the tiles
    whose figures change."""
    old = {t: (t.feed, t.wave_ns) for ts in tables.values() for t in ts}
    for t in old:
        t.feed = t.wave_ns = 0
    fitted = {}
    for n, rows in enumerate(sweeps, 1):
        fitted.update({t: fit + (n,) for t, fit in fit_untimed(tables, rows, mps).items()})
    for t in old:
        if t not in fitted:
            t.feed, t.wave_ns = old[t]
    print("%-12s %3s  %-48s %6s %8s  ->  %6s %8s  %s" % ("table", "i", "tile", "feed", "wave_ns", "feed", "wave_ns",
                                                      "worst miss (points), sweep"))
    for kind in ("16", "float"):
        for i, t in enumerate(candidates(tables, kind)):
            shown = "%-12s %3d  %-48s %6d %8d" % (t.table, i, t.entry(), *old[t])
            if t in fitted:
                miss, points, n = fitted[t]
                print("%s  ->  %6d %8d  %.0f%% (%d), %d" % (shown, t.feed, t.wave_ns, 100 * miss, points, n))
            else:
                print("%s      not fitted" % shown)
    return [t for t in old if (t.feed, t.wave_ns) != old[t]]


def merged(sweeps):
    """One Row a call of the sweeps' rows: each candidate's time, and cuBLAS's, the mean over the
    sweeps that timed it; in the order the sweeps first list the calls."""
    by_label = collections.OrderedDict()
    for rows in sweeps:
        for r in rows:
            by_label.setdefault(r.label, []).append(r)
    out = []
    for label, rs in by_label.items():
        times = {}
        for r in rs:
            for i, us in r.times.items():
                times.setdefault(i, []).append(us)
        cublas = [r.cublas for r in rs if r.cublas]
        out.append(Row(label, rs[0].kind, rs[0].problem, {i: sum(v) / len(v) for i, v in times.items()},
                       sum(cublas) / len(cublas) if cublas else None))
    return out


Choice = collections.namedtuple("Choice", "row pick best sync sync_best")


def choices(tables, rows, mps):
    """Each swept call's pick under the tables and its fastest candidate; for 16-bit calls also
    the pick and the fastest among mma.sync's tiles alone (an sm_80 or sm_90 build's choice)."""
    mma = len(tables["kMmaTiles"])
    out = []
    for r in rows:
        cand = candidates(tables, r.kind)

        def choice(limit):
            costs = {i: cand[i].cost(r.problem, mps) for i in r.times if i < limit}
            costs = {i: c for i, c in costs.items() if c is not None}
            if not costs:
                return None, None
            return min(costs, key=costs.get), min((i for i in r.times if i < limit), key=r.times.get)

        pick, best = choice(len(cand))
        if pick is not None:
            out.append(Choice(r, pick, best, *(choice(mma) if r.kind == "16" else (None, None))))
    return out


def picks(tables, rows, mps):
    """choices() printed, with the pick's time (its forced build's) against cuBLAS's."""
    print("%-44s %4s %4s %9s %9s %9s %7s   %s" % ("call", "pick", "best", "pick/best", "pick µs", "cuBLAS", "/cuBLAS",
                                                "mma.sync: pick best pick/best"))
    for c in choices(tables, rows, mps):
        r = c.row
        over = "%7.3f" % (r.times[c.pick] / r.cublas) if r.cublas else "%7s" % "-"
        line = "%-44s %4d %4d %9.3f %9.2f %9s %s" % (r.label[:44], c.pick, c.best, r.times[c.pick] / r.times[c.best],
                                                    r.times[c.pick], "%.2f" % r.cublas if r.cublas else "-", over)
        if c.sync is not None:
            line += "   %4d %4d %9.3f" % (c.sync, c.sync_best, r.times[c.sync] / r.times[c.sync_best])
        print(line)


def write(path, text, tables):
    """The header with every tile's entry as the tables hold it, replaced at once."""
    out, at = [], 0
    for t in sorted((t for ts in tables.values() for t in ts), key=lambda t: t.span[0]):
        out += [text[at:t.span[0]], t.entry()]
        at = t.span[1]
    out.append(text[at:])
    with open(path + ".tmp", "w") as f:
        f.write("".join(out))
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\nusage:")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--header", default=os.path.join(TOP, "templates", "kernels", "common", "skb_matmul_plan.h"))
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("tiles", help="the sweep's candidates as JSON")
    f = sub.add_parser("fit", help="fit the tables to a sweep")
    f.add_argument("sweep", nargs="+", help="cuda_tile_sweep.py's --json output; several: in the order they ran")
    f.add_argument("--multiprocessors", type=int, help="the swept GPU's (default: the sweep's, else 132)")
    mode = f.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="put the fitted figures into the header")
    mode.add_argument("--check", action="store_true", help="exit 1 when the header's figures are not the fit")
    args = ap.parse_args()
    with open(args.header) as f:
        text = f.read()
    tables = read_tables(text)
    if args.command == "tiles":
        json.dump(export(tables), sys.stdout)
        print()
        return 0
    sweeps = []
    for path in args.sweep:
        with open(path) as f:
            sweeps.append(json.load(f))
    gpus = {(s.get("gpu", "?"), args.multiprocessors or s.get("multiprocessors") or 132) for s in sweeps}
    if len(gpus) > 1:
        raise SystemExit("cuda_tile_fit: the sweeps are of different GPUs: %s" % sorted(gpus))
    gpu, mps = gpus.pop()
    swept_rows = [swept(s, tables) for s in sweeps]
    rows = merged(swept_rows)
    print("GPU %s, %d multiprocessors: %d swept calls in %d sweeps" % (gpu, mps, len(rows), len(sweeps)))
    changed = refit(tables, swept_rows, mps)
    print()
    picks(tables, rows, mps)
    if args.check:
        for t in changed:
            print("cuda_tile_fit: %s %s is the fit, not the header's figures" % (t.table, t.entry()), file=sys.stderr)
        return 1 if changed else 0
    if args.write and changed:
        write(args.header, text, tables)
        print("\nwrote %d tiles' figures into %s" % (len(changed), args.header))
    return 0


if __name__ == "__main__":
    sys.exit(main())
