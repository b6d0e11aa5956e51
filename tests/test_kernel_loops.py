"""The iid kernels' block-draw loop is written inline in each kernel that draws block
by block (see :mod:`skboot._kernels.iid` for why): every copy is the same text, so a
change to one copy that misses another fails here."""

from __future__ import annotations

import inspect
import textwrap

from skboot._kernels import iid

#: Lines of the loop from ``ctr = replicate_counter(...)`` up to its body.
HEAD = 17


def test_block_draw_loop_copies_agree():
    lines = inspect.getsource(iid).splitlines()
    starts = [
        i for i, s in enumerate(lines) if s.strip().startswith("ctr = replicate_")
    ]
    copies = [textwrap.dedent("\n".join(lines[i : i + HEAD])) for i in starts]
    plain = {c for c in copies if "fast_pairs_split" not in c and "pipelined" not in c}
    # five kernels draw plainly, iid_sum_1d also takes the unshuffled full-block
    # path (its 4-lane variant lives in skboot._kernels.iid_pipelined)
    assert (len(copies), len(plain)) == (6, 1), "\n----\n".join(sorted(plain))
    assert plain.pop().endswith("lo, un, thresh, buf, c\n        )")  # the whole head
