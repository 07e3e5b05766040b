"""
Vectorised NumPy reference of the engine's period-over-period rules (lib/detection/detectors/lag.ts
and periods.ts), the yardstick of issue 6's speed goal. scripts/bench/detection-engine.ts runs it on the
engine's own data; it also runs alone on generated data:

    echo '{"series": 2000, "days": 1096, "dayIndex0": 18993, "percentualChange":
      {"dod": 30, "wow": 30, "mom": 15, "qoq": 15, "mpy": 20, "cw": 20}}' |
      python3 scripts/bench/numpy_periods.py

Input (JSON on stdin): series, days, dayIndex0 (epoch day of column 0), repeat (default 3),
values (path of a row-major series x days float64 file; generated when absent), seed,
percentualChange ({rule: percent}; the bench passes the engine's DETECTOR_DEFAULTS), block (series
per NumPy call; default all of them at once: smaller blocks keep the temporaries in cache).
Output (JSON on stdout): per rule the best time of `repeat` runs, series-days/s, flagged days
(dod, wow) or periods (mom, qoq, mpy, cw) and runs (consecutive same-sign flags, which the engine
reports as one anomaly each). The timed part is the rule and counting its flags and runs (the
engine's time includes turning flags into anomalies); the calendar layout, shared by all series,
is not timed.

Left out, because they make each day depend on the decisions before it: cleaning flagged days out of
later baselines (the engine compares with the expected value instead), accepting a lasting change
after adaptAfterDays, the weekday re-levelling of DOD and WOW, and special dates. Every series is
taken to start at column 0 (the engine starts at its first day with data).
"""

import os

# Before NumPy loads: the goal is about one core.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import datetime as dt  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

PROFILE_WEEKS = 8
EPOCH = dt.date(1970, 1, 1)


def classify(actual, expected, frac, own=False):
    """
    classifyPct of lib/detection/kernels.ts as +1/-1/0 (int8): |change| >= frac * |expected|, so an
    expected 0 gives the sign of the change. `own`: expected is a temporary that may be overwritten.
    """
    diff = actual - expected
    bound = np.abs(expected, out=expected if own else None)
    bound *= frac
    up = diff >= bound
    np.negative(bound, out=bound)
    down = diff <= bound
    return up.view(np.int8) - down.view(np.int8)


def runs(flags):
    """Runs of equal non-zero flags along each row: the engine merges them into one anomaly."""
    starts = np.count_nonzero(flags[:, 0])
    if flags.shape[1] > 1:
        cur, prev = flags[:, 1:], flags[:, :-1]
        starts += np.count_nonzero((cur != 0) & (cur != prev))
    return int(starts)


# --- DOD and WOW -----------------------------------------------------------------------------------


def dod(x, frac, _layout):
    """Yesterday scaled by the ratio of the 8-week same-weekday means of today's and yesterday's weekday."""
    s, d = x.shape
    if d <= 14:
        return np.zeros((s, 0), np.int8)
    # Same-weekday sums of 8 weeks by doubling shifted slices over 8 zero weeks in front:
    # w[i] = x[i-56] + x[i-49] + ... + x[i-7], so today's weekday sum is w[t], yesterday's w[t+6].
    pad = 7 * PROFILE_WEEKS
    w = np.zeros((s, pad + d))
    w[:, pad:] = x
    for step in (7, 14, 28):
        w = w[:, step:] + w[:, :-step]
    now, prev = w[:, 14:d], w[:, 20 : d + 6]
    # Before 8 weeks of history the means have fewer days (the engine needs 2 of each weekday: t >= 14).
    t = np.arange(14, d)
    n_now = np.minimum(PROFILE_WEEKS, t // 7)
    n_prev = np.minimum(PROFILE_WEEKS, (t - 1) // 7 + 1)
    early = min(d, pad + 1) - 14  # from t = 57 on, both means have 8 days
    # Expected: yesterday x meanNow / meanPrev, or meanNow when yesterday's weekday mean is not positive.
    expected = now * x[:, 13 : d - 1]
    expected[:, :early] *= n_prev[:early] / n_now[:early]
    with np.errstate(divide="ignore", invalid="ignore"):
        expected /= prev
    bad = prev <= 0
    if bad.any():
        np.divide(now, n_now, out=expected, where=bad)
    return classify(x[:, 14:], expected, frac, own=True)


def wow(x, frac, _layout):
    """The same weekday a week before."""
    return classify(x[:, 7:], x[:, :-7], frac)


# --- MOM, QOQ, MPY, CW -----------------------------------------------------------------------------


def weekday(epoch_day):
    return (epoch_day + 3) % 7  # Monday = 0, as weekdayOf


def month_bounds(day0, n, months):
    """Period starts (relative to day0) covering [0, n), as monthBounds in periods.ts."""
    first = EPOCH + dt.timedelta(days=int(day0))
    year, month = first.year, first.month - (first.month - 1) % months
    out = []
    while True:
        idx = (dt.date(year, month, 1) - EPOCH).days - day0
        out.append(idx)
        if idx >= n:
            return out
        month += months
        if month > 12:
            month -= 12
            year += 1


def week_bounds(day0, n):
    idx = -weekday(day0)
    out = []
    while True:
        out.append(idx)
        if idx >= n:
            return out
        idx += 7


def period_layout(day0, n, bounds, lag):
    """
    The calendar part, the same for every series, of a period compared with the one `lag` periods
    before. The prediction is the sum, over the period's days, of that weekday's mean in the
    reference: each reference day u contributes x[u] * (days of u's weekday in the period) / (days
    of u's weekday in the reference). With that weight per day, the actual and predicted totals of
    all periods are two np.add.reduceat over contiguous columns; grouping the columns by (period,
    weekday) first gives the same sums at the cost of a permuted copy of the data.
    """
    wd_of_day = weekday(day0 + np.arange(n))
    periods = len(bounds) - 1
    period_of_day = np.searchsorted(np.asarray(bounds), np.arange(n), side="right") - 1
    counts = np.zeros((periods, 7))
    np.add.at(counts, (period_of_day, wd_of_day), 1)
    weights = np.zeros(n)
    targets = []
    for j in range(lag, periods):
        a = bounds[j]
        # A trailing partial period counts once it has at least half of its days.
        if a < 0 or a >= n or bounds[j - lag] < 0 or min(bounds[j + 1], n) - a < -(-(bounds[j + 1] - a) // 2):
            continue
        targets.append(j)
        days = period_of_day == j - lag
        # Months and quarters hold every weekday, so no weekday falls back to the overall mean.
        weights[days] = (counts[j] / counts[j - lag])[wd_of_day[days]]
    targets = np.array(targets, dtype=np.intp)
    # bounds[0] <= 0 < bounds[1] and only the last bound is >= n: reduceat column j is period j.
    return {"starts": np.maximum(np.asarray(bounds[:-1]), 0), "weights": weights, "targets": targets,
            "sources": targets - lag}


def compare_periods(x, frac, layout):
    """MOM, QOQ, MPY: a calendar period's total against the prediction from its reference period."""
    starts = layout["starts"]
    actual = np.add.reduceat(x, starts, axis=1)[:, layout["targets"]]
    predicted = np.add.reduceat(x * layout["weights"], starts, axis=1)[:, layout["sources"]]
    return classify(actual, predicted, frac, own=True)


def cw(x, frac, layout):
    """
    The Monday-Sunday week against the four weeks before it. Every weekday occurs four times in the
    reference, so a full week's prediction is the reference total / 4: weekly totals suffice, and
    only a trailing partial week needs the reference days of its own weekdays.
    """
    weekly = np.add.reduceat(x, layout["starts"], axis=1)
    ref = np.cumsum(weekly, axis=1)
    ref[:, 4:] -= ref[:, :-4].copy()  # ref[j] = weeks j-3 .. j
    full = layout["targets"]
    actual = weekly[:, full]
    predicted = ref[:, full - 1] * 0.25
    if layout["partial"] is not None:
        j, days = layout["partial"]
        actual = np.concatenate((actual, weekly[:, j : j + 1]), axis=1)
        predicted = np.concatenate((predicted, x[:, days].sum(axis=1, keepdims=True) * 0.25), axis=1)
    return classify(actual, predicted, frac, own=True)


def week_layout(day0, n):
    bounds = week_bounds(day0, n)
    # Eligible: starts at or after column 28 (a whole reference), and a trailing week of >= 4 days.
    weeks = [j for j in range(len(bounds) - 1) if 28 <= bounds[j] < n and n - bounds[j] >= 4]
    partial = None
    if weeks and bounds[weeks[-1] + 1] > n:
        j = weeks.pop()
        a = bounds[j]
        ref = np.arange(a - 28, a)
        partial = (j, ref[weekday(day0 + ref) < n - a])  # the week starts on Monday (weekday 0)
    starts = np.maximum(np.asarray(bounds[:-1]), 0)
    return {"starts": starts, "targets": np.array(weeks, dtype=np.intp), "partial": partial}


def layouts(day0, n):
    months = month_bounds(day0, n, 1)
    quarters = month_bounds(day0, n, 3)
    return {
        "dod": None,
        "wow": None,
        "mom": period_layout(day0, n, months, 1),
        "qoq": period_layout(day0, n, quarters, 1),
        "mpy": period_layout(day0, n, months, 12),
        "cw": week_layout(day0, n),
    }


RULES = {
    "dod": dod,
    "wow": wow,
    "mom": compare_periods,
    "qoq": compare_periods,
    "mpy": compare_periods,
    "cw": cw,
}


def generate(s, d, seed):
    """Stand-alone data shaped like scripts/synthetic/rows.ts (weekly profile, trend, noise, spikes)."""
    rng = np.random.default_rng(seed)
    profile = np.array([1.0, 1.05, 1.05, 1.1, 1.2, 0.65, 0.45])[np.arange(d) % 7]
    level = rng.uniform(10, 10_000, (s, 1))
    noise = rng.uniform(0.02, 0.08, (s, 1))
    trend = rng.uniform(-0.1, 0.1, (s, 1)) / 365
    x = level * profile * (1 + trend * np.arange(d)) * (1 + noise * rng.standard_normal((s, d)))
    np.maximum(x, 0, out=x)
    rows = np.repeat(np.arange(s), 3)
    x[rows, rng.integers(0, d, rows.size)] *= 2
    return x


def run_rule(fn, x, frac, layout, block):
    """Flagged count and runs of one rule, `block` series per call (rows are independent)."""
    n_runs = n_flagged = 0
    for i in range(0, len(x), block):
        flags = fn(x[i : i + block], frac, layout)
        n_runs += runs(flags)
        n_flagged += int(np.count_nonzero(flags))
    return n_flagged, n_runs


def main():
    cfg = json.load(sys.stdin)
    s, d = int(cfg["series"]), int(cfg["days"])
    day0 = int(cfg.get("dayIndex0", (dt.date(2022, 1, 1) - EPOCH).days))
    repeat = int(cfg.get("repeat", 3))
    block = int(cfg.get("block") or s)
    pct = cfg["percentualChange"]  # the engine's defaults, passed in so the two never drift apart
    path = cfg.get("values")
    x = np.fromfile(path, dtype=np.float64).reshape(s, d) if path else generate(s, d, cfg.get("seed", 1))
    plan = layouts(day0, d)
    out = {}
    for rule, fn in RULES.items():
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            flagged, n_runs = run_rule(fn, x, pct[rule] / 100, plan[rule], block)
            best = min(best, time.perf_counter() - start)
        out[rule] = {"seconds": best, "rate": s * d / best, "flagged": flagged, "runs": n_runs}
    json.dump({"numpy": np.__version__, "repeat": repeat, "block": block, "rules": out}, sys.stdout)


if __name__ == "__main__":
    main()
