"""scripts/probes/quartile_rule.py: rule A with the medians' notches in place
of the quartiles, on made-up rows: a wide-spread point moved past its band
is flagged by the notch and not by the quartiles; a move inside the notches
or under the band is flagged by neither; and the probe restores the gate's
own rule after judging with the other."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(ROOT, "scripts", "probes"), os.path.join(ROOT, "scripts"),
                os.path.join(ROOT, "scripts", "lib")]
import quartile_rule  # noqa: E402
import sbcompare  # noqa: E402


def row(median, q1, q3, samples):
    return {"median_us": median, "q1_us": q1, "q3_us": q3, "samples": samples}


def test_the_notch_sees_a_move_the_quartiles_hide():
    base = row(10.94, 10.37, 11.30, 7299)   # devscan/cub at 1M: IQR about 9% of the median
    moved = row(11.49, 10.89, 11.87, 7300)  # every sample 5% slower
    assert not quartile_rule.QUARTILES(base, moved, 0.035)
    assert quartile_rule.notch_slower(base, moved, 0.035)
    assert sbcompare.slower_beyond_noise(base, moved, 0.035)  # the gate's rule since
    # under the band, or with too few samples for the notches to part: neither
    assert not quartile_rule.notch_slower(base, row(11.20, 10.6, 11.6, 7300), 0.035)
    assert not quartile_rule.notch_slower(base | {"samples": 8}, moved | {"samples": 8}, 0.035)
    # the notch is 1.57 IQR / sqrt(n); half the IQR where the row counts no samples
    assert abs(quartile_rule.notch(row(10.0, 9.0, 11.0, 100)) - 0.314) < 1e-12
    assert quartile_rule.notch(row(10.0, 9.0, 11.0, None)) == 1.0


def test_judging_with_the_notch_leaves_the_gates_rule_in_place(monkeypatch):
    calls = []
    monkeypatch.setattr(sbcompare, "compare", lambda *a, **k: calls.append(sbcompare.slower_beyond_noise))
    quartile_rule.judged(None, None, quartile_rule.notch_slower, None)
    assert calls == [quartile_rule.notch_slower]
    assert sbcompare.slower_beyond_noise is quartile_rule.GATE


def test_a_notch_down_to_zero_is_never_flagged_at_any_scale():
    base = row(10.0, 9.0, 11.0, 100)
    wide = row(10.0, 1.0, 30.0, 2)  # two samples 29 us apart: the notch reaches below zero
    assert sbcompare.smallest_flagged_scale(base, wide, 0.05) == float("inf")
    assert not sbcompare.slower_beyond_noise(base, sbcompare.slowed(wide, 100.0), 0.05)
    # with the samples counted, the edge is where the rule first flags
    many = row(10.0, 9.0, 11.0, 100)
    s = sbcompare.smallest_flagged_scale(base, many, 0.05)
    assert sbcompare.slower_beyond_noise(base, sbcompare.slowed(many, s * 1.0001), 0.05)
    assert not sbcompare.slower_beyond_noise(base, sbcompare.slowed(many, s * 0.9999), 0.05)
