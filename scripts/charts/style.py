"""How every chart looks: one colour and marker per policy (the same in every chart),
the figure's title and caption, and writing it as PNG and SVG."""

import os
import textwrap
import zlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The policies in the order `jetsim policies` prints them (scripts/test-charts.sh checks
# this list against it), each with its colour for good: the Okabe-Ito palette, which
# colour-blind readers can tell apart, and a marker, so print in grey still works.
POLICY_ORDER = ["largest-first", "lru", "jetsam-bands", "android-lmk", "cost-aware", "random", "oracle", "mru", "fifo", "smartlmk"]
_FIXED = {
    "largest-first": ("#E69F00", "s"),  # orange
    "lru":           ("#000000", "o"),  # black: the usual baseline
    "jetsam-bands":  ("#0072B2", "^"),  # blue
    "android-lmk":   ("#009E73", "v"),  # bluish green
    "cost-aware":    ("#D55E00", "D"),  # vermillion
    "random":        ("#999999", "x"),  # grey
    "oracle":        ("#CC79A7", "P"),  # reddish purple
    "mru":           ("#56B4E9", "<"),  # sky blue (the baselines, run only when named)
    "fifo":          ("#F0E442", ">"),  # yellow
    "smartlmk":      ("#332288", "h"),  # indigo (Tol's palette: Okabe-Ito has no ninth colour)
}
# Policies jetsim does not ship (an external policy, say) take a colour and a marker
# from their name: the same in every chart, though two such names may share a colour
# (their markers then most likely differ).
_SPARE_COLOURS = ["#8C564B", "#BCBD22", "#17BECF", "#7F7F7F", "#9467BD",
                  "#2CA02C", "#D62728", "#1F3A93", "#A65628"]
_SPARE_MARKERS = ["<", ">", "h", "*", "p", "d", "8", "H"]


def order(policies):
    """Policies sorted as `jetsim policies` prints them; others after, by name."""
    known = [p for p in POLICY_ORDER if p in policies]
    return known + sorted(p for p in policies if p not in _FIXED)


def colour(policy):
    return _look(policy)[0]


def marker(policy):
    return _look(policy)[1]


def _look(policy):
    if policy in _FIXED:
        return _FIXED[policy]
    h = zlib.crc32(policy.encode())
    return _SPARE_COLOURS[h % len(_SPARE_COLOURS)], _SPARE_MARKERS[(h // len(_SPARE_COLOURS)) % len(_SPARE_MARKERS)]


plt.rcParams.update({
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "none",    # text stays text in the SVG: searchable, editable
    "svg.hashsalt": "jetsim",  # the same SVG bytes from the same data
})

def figure(rows, cols, panel_w, panel_h, legend_w=1.6, **kw):
    """A figure of rows x cols panels, laid out (constrained) with room for a legend on
    the right; `finish` makes room for the caption underneath."""
    width = max(cols * panel_w, 5.0) + legend_w  # a lone panel wide enough for its title
    height = rows * panel_h + 0.9
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), squeeze=False,
                             layout="constrained", **kw)
    return fig, axes


def finish(fig, title, caption, handles=None, labels=None):
    """The title above, the caption (wrapped) below, and the legend to the right of the panels."""
    fig.suptitle(title, fontsize=10, fontweight="bold", x=0.01, ha="left")
    lines = textwrap.wrap(caption, max(60, int(fig.get_figwidth() * 13)))
    # Grow the figure by the caption's height and keep the panels out of it.
    caption_in = (len(lines) * 7.5 * 1.3 + 8) / 72
    width, height = fig.get_size_inches()
    fig.set_size_inches(width, height + caption_in)
    fig.get_layout_engine().set(rect=(0, caption_in / (height + caption_in), 1, 1 - caption_in / (height + caption_in)))
    fig.text(0.01, 4 / 72 / (height + caption_in), "\n".join(lines), fontsize=7.5,
             color="#333333", ha="left", va="bottom", linespacing=1.3)
    if handles:
        fig.legend(handles, labels, loc="outside right upper", frameon=False)


def save(fig, out, name, formats):
    """Writes OUT/NAME.png and/or .svg; returns the paths written."""
    paths = []
    for fmt in formats:
        path = os.path.join(out, f"{name}.{fmt}")
        fig.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
        paths.append(path)
    plt.close(fig)
    return paths


def hide_unused(axes, used):
    for ax in axes.flat[used:]:
        ax.set_visible(False)


def label_x(axes, used, text):
    """Puts the x label under the lowest panel in use of each column."""
    rows, cols = axes.shape
    for c in range(cols):
        r = max(r for r in range(rows) if r * cols + c < used or r == 0)
        axes[r, c].set_xlabel(text)
        if r < rows - 1:
            axes[r, c].xaxis.set_tick_params(labelbottom=True)
