#!/usr/bin/env python3
"""DP-SGD on Fashion-MNIST with PyTorch, accounted by dpkit's certified PLD accountant.

What it does, step by step (docs/python-example.md shows a full run and what it means):

1. Loads Fashion-MNIST (60 000 training and 10 000 test images, 28×28 grey levels) from the IDX
   files of Debian's ``dataset-fashion-mnist`` package (or ``--data-dir``). Pixels are mapped to
   [-1, 1] by the fixed map x/127.5 − 1: no statistic of the data is used before training, so
   the preprocessing spends no privacy.
2. Asks dpkit for the noise multiplier σ: the smallest σ whose certified ε at δ is at most the
   target for T = ⌈epochs · N / B⌉ steps at sampling rate q = B / N (``dpkit.calibrate_noise``).
3. Trains a small CNN with DP-SGD. Every step:

   * **Poisson sampling**: every training example joins the batch independently with
     probability q = B / N, so the batch size is random (B on average). This is the sampling
     the accountant assumes; a shuffled loader of fixed-size batches is a different mechanism
     and would need other accounting (``sampling="without-replacement"``, replace-one
     neighbours).
   * the gradient of every example in the batch separately (``per_example_grads``), each
     clipped to L2 norm at most C;
   * the clipped gradients summed, Gaussian noise of standard deviation σ·C added to every
     coordinate, the result divided by the *expected* batch size B (dividing by the random
     batch size would make the scale depend on the data);
   * an update by SGD with momentum and a cosine-decaying learning rate (post-processing of
     the noisy gradient: it costs no privacy), and one
     ``PLDAccountant.step(noise_multiplier=σ, sample_rate=q)``.

4. With ``--canaries M`` (docs/audit.md, "Audit a real run from canary scores"): M canaries
   drawn before training, each inserted into the training set by a fair coin; after training
   their scores are audited by ``dpkit.audit_scores`` (one run, ``--guesses`` K) against the ε
   the accountant certified — exit status 3 when the empirical lower bound exceeds it, as it
   does for a deliberately broken run (``--break noise``: noise 10x smaller than claimed).
5. After every epoch prints the test accuracy, the certified bracket lower ≤ ε ≤ upper of the
   steps taken so far at δ, and the seconds elapsed; at the end one machine-readable
   ``final:`` line (full-precision numbers, read by python/tests/test_example_fashion_mnist.py).

Run (the Python package must be importable, e.g. PYTHONPATH=build/<dir>/python)::

    /usr/bin/python3 examples/fashion_mnist_dpsgd.py            # the defaults: ε = 3, δ = 1e-5
    /usr/bin/python3 examples/fashion_mnist_dpsgd.py --help

Needs Debian's python3-torch, python3-numpy and dataset-fashion-mnist; no network.
"""

from __future__ import annotations

import argparse
import gzip
import math
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("fashion_mnist_dpsgd.py needs PyTorch: apt-get install python3-torch "
             "(and run it with /usr/bin/python3)")

# Where Debian's dataset-fashion-mnist package puts the IDX files (first match wins).
DEFAULT_DATA_DIRS = ("/usr/share/datasets/fashion-mnist",)
IDX_FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}


# --- data ---------------------------------------------------------------------------------

def read_idx(path: Path) -> np.ndarray:
    """An IDX file (LeCun's MNIST format, optionally gzipped) as a numpy array.

    Format: two zero bytes, a type code (0x08 unsigned byte, ...), the number of dimensions d,
    then d big-endian uint32 sizes and the data in C order, big-endian.
    """
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError(f"{path}: not an IDX file (bad magic number)")
    dtypes = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
    if raw[2] not in dtypes:
        raise ValueError(f"{path}: unknown IDX type code 0x{raw[2]:02x}")
    ndim = raw[3]
    shape = tuple(int(s) for s in np.frombuffer(raw, ">u4", count=ndim, offset=4))
    dtype = np.dtype(dtypes[raw[2]])
    offset = 4 + 4 * ndim
    count = int(np.prod(shape)) if shape else 1
    if len(raw) != offset + count * dtype.itemsize:
        raise ValueError(f"{path}: {len(raw)} bytes, but the header {shape} needs "
                         f"{offset + count * dtype.itemsize}")
    return np.frombuffer(raw, dtype, count=count, offset=offset).reshape(shape)


def _find_idx(directory: Path, stem: str) -> Optional[Path]:
    for name in (stem, stem + ".gz", stem.replace("-idx", ".idx"),
                 stem.replace("-idx", ".idx") + ".gz"):
        p = directory / name
        if p.is_file():
            return p
    return None


def find_data_dir(data_dir: Optional[str] = None) -> Path:
    """The directory holding the four Fashion-MNIST IDX files: ``data_dir`` if given, else the
    first of DEFAULT_DATA_DIRS that has them. FileNotFoundError naming the Debian package
    otherwise."""
    candidates = [Path(data_dir)] if data_dir is not None else [Path(d) for d in DEFAULT_DATA_DIRS]
    for d in candidates:
        if all(_find_idx(d, stem) for stem in IDX_FILES.values()):
            return d
    where = data_dir if data_dir is not None else ", ".join(DEFAULT_DATA_DIRS)
    raise FileNotFoundError(
        f"Fashion-MNIST IDX files ({', '.join(IDX_FILES.values())}, optionally .gz) not found "
        f"in {where}. Install Debian's package: apt-get install dataset-fashion-mnist, or pass "
        f"--data-dir DIR")


def load_fashion_mnist(data_dir: Optional[str] = None
                       ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Path]:
    """(train images [60000, 28, 28] uint8, train labels [60000], test images, test labels,
    the directory they came from)."""
    d = find_data_dir(data_dir)
    arrays = {key: read_idx(_find_idx(d, stem)) for key, stem in IDX_FILES.items()}
    for split in ("train", "test"):
        x, y = arrays[f"{split}_images"], arrays[f"{split}_labels"]
        if x.ndim != 3 or y.ndim != 1 or x.shape[0] != y.shape[0]:
            raise ValueError(f"{d}: {split} images {x.shape} and labels {y.shape} do not match")
    return (arrays["train_images"], arrays["train_labels"], arrays["test_images"],
            arrays["test_labels"], d)


def to_tensors(images: np.ndarray, labels: np.ndarray) -> Tuple["torch.Tensor", "torch.Tensor"]:
    """uint8 images → float [n, 1, 28, 28] in [-1, 1] (fixed map, no data statistics)."""
    x = torch.from_numpy(images.astype(np.float32)).unsqueeze(1).div_(127.5).sub_(1.0)
    y = torch.from_numpy(labels.astype(np.int64))
    return x, y


# --- model --------------------------------------------------------------------------------

def make_model() -> "nn.Sequential":
    """A small CNN (26 010 parameters) after Papernot et al. 2021 ("Tempered sigmoid
    activations for deep learning with differential privacy") and Tramèr & Boneh 2021: tanh
    activations, which keep activations bounded and suit clipped gradients better than ReLU."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 8, stride=2, padding=3), nn.Tanh(), nn.MaxPool2d(2, 1),  # 16×13×13
        nn.Conv2d(16, 32, 4, stride=2), nn.Tanh(), nn.MaxPool2d(2, 1),            # 32×4×4
        nn.Flatten(),
        nn.Linear(32 * 4 * 4, 32), nn.Tanh(),
        nn.Linear(32, 10),
    )


# --- per-example gradients ----------------------------------------------------------------

def _vmap_tools():
    """(functional_call, grad, vmap) from torch.func (PyTorch ≥ 2.0) or functorch (1.13, as in
    Debian bookworm), or None where neither is there."""
    try:
        from torch.func import functional_call, grad, vmap
    except ImportError:
        try:
            from functorch import grad, vmap
            from torch.nn.utils.stateless import functional_call
        except ImportError:
            return None
    return functional_call, grad, vmap


PER_EXAMPLE_METHODS = ("auto", "vmap", "hooks")


def per_example_grads(model: "nn.Module", x: "torch.Tensor", y: "torch.Tensor",
                      method: str = "auto") -> List["torch.Tensor"]:
    """The gradient of every example's cross-entropy loss, one tensor [n, *p.shape] per
    parameter p of ``model`` (in ``model.parameters()`` order).

    ``method``: ``"vmap"`` — ``vmap(grad(loss of one example))`` over the batch (torch.func or
    functorch); ``"hooks"`` — one forward and one backward pass with the per-example
    gradients of the Conv2d and Linear layers written out (:func:`_per_example_grads_hooks`);
    ``"auto"`` — vmap where available, else hooks. Both are exact (float rounding aside);
    python/tests/test_example_fashion_mnist.py checks each against one backward pass per
    example (:func:`per_example_grads_loop`).
    """
    if method not in PER_EXAMPLE_METHODS:
        raise ValueError(f"method is {method!r}, but must be one of {PER_EXAMPLE_METHODS}")
    tools = _vmap_tools() if method in ("auto", "vmap") else None
    if method == "vmap" and tools is None:
        raise ImportError("per_example_grads(method='vmap') needs torch.func (PyTorch >= 2.0) "
                          "or functorch")
    if tools is None:
        return _per_example_grads_hooks(model, x, y)
    functional_call, grad, vmap = tools
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss(p, xi, yi):
        logits = functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(logits, yi.unsqueeze(0))

    g = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    return [g[name] for name, _ in model.named_parameters()]


def _per_example_grads_hooks(model: "nn.Module", x: "torch.Tensor", y: "torch.Tensor"
                             ) -> List["torch.Tensor"]:
    """Per-example gradients without vmap, for Sequential models of Conv2d, Linear and
    parameter-free layers (tanh, max-pool, flatten).

    One forward and one backward pass: forward hooks record each Conv2d's and Linear's input
    a; one autograd call gives the gradient g of the *summed* loss with respect to each
    layer's output, whose row i is example i's own (the examples do not interact: no batch
    norm). Then per example i, Linear: ∂L_i/∂W = g_i a_iᵀ, ∂L_i/∂b = g_i; Conv2d: the same
    with a_i replaced by its unfolded patches (im2col), summed over output positions.
    """
    records: List[Tuple[nn.Module, torch.Tensor, torch.Tensor]] = []

    def hook(module, inputs, output):
        records.append((module, inputs[0].detach(), output))

    layers = [m for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    own = {id(p) for m in layers for p in m.parameters(recurse=False)}
    if any(id(p) not in own for p in model.parameters()):
        raise TypeError("per_example_grads(method='hooks') handles parameters of Conv2d and "
                        "Linear layers only")
    for m in layers:
        if isinstance(m, nn.Conv2d) and (m.groups != 1 or m.padding_mode != "zeros"):
            raise TypeError("per_example_grads(method='hooks'): Conv2d with groups=1 and zero "
                            "padding only")
    handles = [m.register_forward_hook(hook) for m in layers]
    try:
        loss = F.cross_entropy(model(x), y, reduction="sum")
    finally:
        for h in handles:
            h.remove()
    grad_outputs = torch.autograd.grad(loss, [out for _, _, out in records])
    per_param: Dict[int, torch.Tensor] = {}
    for (m, a, _), g in zip(records, grad_outputs):
        n = a.shape[0]
        if isinstance(m, nn.Linear):
            gw = torch.einsum("no,ni->noi", g, a)
            gb = g
        else:
            cols = F.unfold(a, m.kernel_size, dilation=m.dilation, padding=m.padding,
                            stride=m.stride)                       # [n, c_in·k·k, L]
            g2 = g.reshape(n, g.shape[1], -1)                       # [n, c_out, L]
            gw = torch.bmm(g2, cols.transpose(1, 2)).reshape(n, *m.weight.shape)
            gb = g2.sum(dim=2)
        per_param[id(m.weight)] = gw
        if m.bias is not None:
            per_param[id(m.bias)] = gb
    return [per_param[id(p)] for p in model.parameters()]


def per_example_grads_loop(model: "nn.Module", x: "torch.Tensor", y: "torch.Tensor"
                           ) -> List["torch.Tensor"]:
    """The same as :func:`per_example_grads` by one backward pass per example (slow; the
    reference the smoke test compares with)."""
    params = list(model.parameters())
    rows: List[List[torch.Tensor]] = []
    for i in range(x.shape[0]):
        loss = F.cross_entropy(model(x[i:i + 1]), y[i:i + 1], reduction="sum")
        rows.append(list(torch.autograd.grad(loss, params)))
    return [torch.stack([r[j] for r in rows]) for j in range(len(params))]


def clipped_noisy_gradient(grads: Sequence["torch.Tensor"], clip: float, noise_std: float,
                           expected_batch_size: float,
                           generator: Optional["torch.Generator"] = None
                           ) -> List["torch.Tensor"]:
    """DP-SGD's gradient from per-example gradients ``grads`` (one [n, *shape] tensor per
    parameter): every example's whole gradient clipped to L2 norm ≤ ``clip``, summed, plus
    N(0, noise_std²) in every coordinate, divided by ``expected_batch_size``. n may be 0."""
    n = grads[0].shape[0]
    if n:
        sq = torch.stack([g.reshape(n, -1).pow(2).sum(dim=1) for g in grads]).sum(dim=0)
        scale = (clip / (sq.sqrt() + 1e-12)).clamp(max=1.0)      # [n]
        sums = [torch.einsum("n,n...->...", scale, g) for g in grads]
    else:
        sums = [torch.zeros(g.shape[1:], dtype=g.dtype) for g in grads]
    out = []
    for s in sums:
        if noise_std > 0:
            s = s + noise_std * torch.randn(s.shape, generator=generator, dtype=s.dtype)
        out.append(s / expected_batch_size)
    return out


# --- training -----------------------------------------------------------------------------

def accuracy(model: "nn.Module", x: "torch.Tensor", y: "torch.Tensor", chunk: int = 2500) -> float:
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, x.shape[0], chunk):
            correct += int((model(x[i:i + chunk]).argmax(dim=1) == y[i:i + chunk]).sum())
    model.train()
    return correct / x.shape[0]


# --- auditing with canaries -----------------------------------------------------------------

def make_canaries(images: np.ndarray, labels: np.ndarray, seed: int,
                  kind: str = "mislabelled") -> Dict[str, np.ndarray]:
    """Canaries, each inserted into the training set by an independent fair coin — the one-run
    protocol of Steinke, Nasr & Jagielski (2023) [SNJ23]. ``mislabelled``: the given images,
    each with a label other than its own (uniform among the nine others); ``noise``:
    out-of-distribution images of uniform random pixels with uniform random labels. Drawn from
    their own generator, fixed before training."""
    rng = np.random.default_rng([seed, 2])
    m = labels.shape[0]
    if kind == "noise":
        images = rng.integers(0, 256, size=images.shape, dtype=np.uint8)
        chosen = rng.integers(0, 10, size=m)
    else:
        chosen = (labels.astype(np.int64) + rng.integers(1, 10, size=m)) % 10
    member = rng.random(m) < 0.5
    return {"images": images, "labels": chosen, "member": member}


def canary_scores(model: "nn.Module", canaries: Dict[str, np.ndarray]) -> np.ndarray:
    """Each canary's score: minus the cross-entropy of its (wrong) label under the trained
    model — larger when the model has learned the canary, i.e. more likely a member."""
    x, y = to_tensors(canaries["images"], canaries["labels"])
    model.eval()
    with torch.no_grad():
        loss = F.cross_entropy(model(x), y, reduction="none")
    model.train()
    return -loss.numpy().astype(np.float64)


class GradientScores:
    """White-box canary scores: at every step, the inner product of the step's noisy gradient
    sum (clipped gradients of the batch plus the noise, before the division by B) with each
    canary's own gradient at the same parameters, clipped to C — summed over the steps. An
    inserted canary that is in the batch adds |g|² to its score; the noise adds a centred
    Gaussian of standard deviation σC|g| either way (the gradient inner product of Steinke,
    Nasr & Jagielski 2023 [SNJ23], for input canaries)."""

    def __init__(self, canaries: Dict[str, np.ndarray], clip: float, method: str):
        self.x, self.y = to_tensors(canaries["images"], canaries["labels"])
        self.clip, self.method = clip, method
        self.scores = np.zeros(self.x.shape[0])

    def observe(self, model: "nn.Module", noisy: Sequence["torch.Tensor"], b: float) -> None:
        grads = per_example_grads(model, self.x, self.y, self.method)
        n = self.x.shape[0]
        flat = torch.cat([g.reshape(n, -1) for g in grads], dim=1)
        flat = flat * (self.clip / (flat.norm(dim=1, keepdim=True) + 1e-12)).clamp(max=1.0)
        step = torch.cat([g.reshape(-1) for g in noisy]) * b
        self.scores += (flat @ step).detach().numpy().astype(np.float64)


def audit_canaries(dpkit, scores: np.ndarray, canaries: Dict[str, np.ndarray],
                   args: argparse.Namespace, claimed: float) -> int:
    """Audits the canaries' scores with dpkit (one run, the K highest scores guessed in),
    prints every statistic and the verdict against the certified ε the accountant claims, and
    returns the exit status: 3 when the empirical lower bound exceeds the claim."""
    member = canaries["member"]
    if args.canary_scores is not None:
        rows = ["score,member"] + [f"{s!r},{int(m)}" for s, m in zip(scores, member)]
        Path(args.canary_scores).write_text("\n".join(rows) + "\n")
    k = args.guesses if args.guesses is not None else max(1, args.canaries // 5)
    audit = dpkit.audit_scores(scores[member], scores[~member], one_run=True, guesses=k,
                               delta=args.delta, claim_epsilon=claimed)
    print(f"audit: {args.canaries} canaries ({int(member.sum())} inserted), one run, the {k} "
          f"highest scores guessed in; epsilon at delta = {args.delta:g}, 95 % confidence")
    for r in audit.rows:
        if "epsilon" in r:
            extra = f" (mu >= {r['mu_lower']:.4f})" if "mu_lower" in r else ""
            print(f"  {r['statistic']:>15}  {r['kind']:>11}  epsilon {r['epsilon']:.4f}{extra}")
    one = audit["one-run"]
    print(f"  {'tpr-at-fpr':>15}  {'estimate':>11}  TPR {audit['tpr-at-fpr']['tpr']:.4f} at FPR "
          f"{audit['tpr-at-fpr']['fpr']:g}; AUROC {audit['auroc']['auroc']:.4f}")
    print(f"audit: empirical lower bound eps >= {one['epsilon']:.4f} ({one['correct']} of "
          f"{one['guesses']} guesses right) vs certified upper bound eps <= {claimed:.4f}: "
          f"{audit.verdict}")
    print(f"audit-final: canaries={args.canaries} inserted={int(member.sum())} "
          f"guesses={one['guesses']} correct={one['correct']} eps_lower_bound={one['epsilon']!r} "
          f"eps_claimed={claimed!r} verdict={audit.verdict} break={args.broken}")
    return 3 if audit.verdict == "violated" else 0


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="DP-SGD on Fashion-MNIST (PyTorch) with dpkit's certified privacy "
                    "accounting. The noise multiplier is calibrated by dpkit so that the whole "
                    "run is (ε, δ)-DP for add/remove-one neighbours under Poisson sampling; "
                    "after every epoch the test accuracy and the certified bracket "
                    "lower ≤ ε ≤ upper of the steps so far are printed.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--epochs", type=float, default=10,
                   help="length of the run in expected passes over the training set: "
                        "⌈epochs·N/B⌉ steps (a fraction is allowed)")
    p.add_argument("--batch-size", type=int, default=1000,
                   help="expected batch size B (examples); each example joins a step's batch "
                        "with probability q = B/N (Poisson sampling)")
    p.add_argument("--target-epsilon", type=float, default=3.0,
                   help="privacy budget ε of the whole run (at --delta)")
    p.add_argument("--delta", type=float, default=1e-5,
                   help="δ of the (ε, δ) guarantee; keep it well below 1/N (N = 60 000)")
    p.add_argument("--clip", type=float, default=1.0,
                   help="clipping norm C: every example's gradient is scaled to L2 norm ≤ C; "
                        "the noise standard deviation is σ·C")
    p.add_argument("--lr", type=float, default=1.0,
                   help="initial learning rate of SGD (with --momentum), applied to the noisy "
                        "mean gradient")
    p.add_argument("--momentum", type=float, default=0.9, help="SGD momentum")
    p.add_argument("--lr-schedule", choices=("cosine", "constant"), default="cosine",
                   help="cosine: the learning rate decays from --lr to 0 over the run's steps "
                        "(post-processing: it costs no privacy); constant: --lr throughout")
    p.add_argument("--limit", type=int, default=None,
                   help="use only the first LIMIT training examples (N = LIMIT; for smoke "
                        "tests); the test set stays whole")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the initial weights, the sampling and the noise")
    p.add_argument("--threads", type=int, default=2, help="PyTorch CPU threads")
    p.add_argument("--per-example", choices=PER_EXAMPLE_METHODS, default="auto",
                   help="how per-example gradients are computed: vmap(grad) (torch.func or "
                        "functorch), hooks (explicit formulas for Conv2d and Linear), or auto "
                        "(vmap where available)")
    p.add_argument("--csv", default=None, metavar="PATH",
                   help="also write one row per epoch to PATH (epoch, step, test_accuracy, "
                        "eps_lower, eps_upper, delta, seconds)")
    p.add_argument("--canaries", type=int, default=0, metavar="M",
                   help="audit the run: M canaries (--canary-kind), each inserted into the "
                        "training set by a fair coin; each is scored (--score) and dpkit's "
                        "one-run audit sets the empirical lower bound on ε beside the certified "
                        "upper bound; exit status 3 when the lower bound exceeds it")
    p.add_argument("--canary-kind", choices=("mislabelled", "noise"), default="mislabelled",
                   help="mislabelled: test images with a wrong label; noise: images of uniform "
                        "random pixels with random labels (out of distribution)")
    p.add_argument("--score", choices=("loss", "gradient"), default="loss",
                   help="the canaries' score: loss — minus the final model's loss on the canary "
                        "(black box); gradient — the sum over the steps of the inner product of "
                        "the noisy gradient sum with the canary's clipped gradient (white box: "
                        "what an observer of every update sees; costs a canary gradient per "
                        "step)")
    p.add_argument("--guesses", type=int, default=None, metavar="K",
                   help="with --canaries: the audit guesses 'in' for the K highest scores "
                        "(fixed before training; default M/5)")
    p.add_argument("--break", dest="broken", choices=("none", "no-clip", "noise"),
                   default="none",
                   help="a deliberately broken run for the audit to catch: no-clip (gradients "
                        "not clipped) or noise (noise standard deviation 10x smaller than the "
                        "accountant is told); the accountant still claims the calibrated ε")
    p.add_argument("--canary-scores", default=None, metavar="PATH",
                   help="with --canaries: write the canaries' scores to PATH (columns score, "
                        "member), the input of dpkit audit --scores PATH --one-run")
    p.add_argument("--data-dir", default=DEFAULT_DATA_DIRS[0],
                   help="directory of the four IDX files (optionally .gz); the default is where "
                        "Debian's dataset-fashion-mnist installs them")
    a = p.parse_args(argv)
    if not (a.epochs > 0 and math.isfinite(a.epochs)):
        p.error(f"--epochs is {a.epochs}, but must be > 0")
    if a.batch_size < 1:
        p.error(f"--batch-size is {a.batch_size}, but must be >= 1")
    if not (a.target_epsilon > 0 and math.isfinite(a.target_epsilon)):
        p.error(f"--target-epsilon is {a.target_epsilon}, but must be > 0")
    if not (0 < a.delta < 1):
        p.error(f"--delta is {a.delta}, but must be in (0, 1)")
    if not (a.clip > 0 and math.isfinite(a.clip)):
        p.error(f"--clip is {a.clip}, but must be > 0")
    if not (a.lr > 0 and math.isfinite(a.lr)):
        p.error(f"--lr is {a.lr}, but must be > 0")
    if a.limit is not None and a.limit < 1:
        p.error(f"--limit is {a.limit}, but must be >= 1")
    if a.threads < 1:
        p.error(f"--threads is {a.threads}, but must be >= 1")
    if a.canaries < 0:
        p.error(f"--canaries is {a.canaries}, but must be >= 0")
    if a.guesses is not None and not (a.canaries and 1 <= a.guesses <= a.canaries):
        p.error(f"--guesses is {a.guesses}, but must be in [1, --canaries] (and needs "
                f"--canaries)")
    if a.broken != "none" and not a.canaries:
        p.error("--break is a demonstration for the audit: give --canaries too")
    if a.score != "loss" and not a.canaries:
        p.error("--score needs --canaries")
    if a.canary_scores is not None and not a.canaries:
        p.error("--canary-scores needs --canaries")
    return a


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    t_start = time.perf_counter()
    try:
        import dpkit
        from dpkit.opacus import PLDAccountant
    except ImportError as e:
        sys.exit(f"cannot import dpkit ({e}): build the Python package (cmake --build <dir> "
                 f"--target dpkit_python) and set PYTHONPATH=<dir>/python, or pip install .")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    try:
        xtr, ytr, xte, yte, where = load_fashion_mnist(args.data_dir)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.limit is not None:
        xtr, ytr = xtr[:args.limit], ytr[:args.limit]
    canaries = None
    if args.canaries:
        if args.canaries > xte.shape[0] // 2:
            print(f"error: --canaries is {args.canaries}, but must be at most "
                  f"{xte.shape[0] // 2} (half the test images)", file=sys.stderr)
            return 2
        canaries = make_canaries(xte[-args.canaries:], yte[-args.canaries:], args.seed,
                                 args.canary_kind)
        xte, yte = xte[:-args.canaries], yte[:-args.canaries]
        member = canaries["member"]
        xtr = np.concatenate([xtr, canaries["images"][member]])
        ytr = np.concatenate([ytr, canaries["labels"][member]])
    x_train, y_train = to_tensors(xtr, ytr)
    x_test, y_test = to_tensors(xte, yte)
    n = x_train.shape[0]
    b = args.batch_size
    if b > n:
        print(f"error: --batch-size is {b}, but must be at most the number of training "
              f"examples ({n})", file=sys.stderr)
        return 2
    q = b / n
    steps = math.ceil(args.epochs * n / b)   # the accountant's convention (epochs·N/B rounded up)
    method = args.per_example
    if method == "auto":
        method = "vmap" if _vmap_tools() is not None else "hooks"
    print(f"dpkit {dpkit.__version__}, torch {torch.__version__}, {args.threads} thread(s), "
          f"per-example gradients by {method}")
    print(f"data: {n} training and {x_test.shape[0]} test images from {where}")

    try:
        cal = dpkit.calibrate_noise(args.target_epsilon, args.delta, batch_size=b,
                                    dataset_size=n, epochs=args.epochs)
        sigma = float(cal)
    except ValueError as e:  # also dpkit.NoCertifiedValueError
        print(f"error: no noise multiplier for this budget: {e}", file=sys.stderr)
        return 2
    print(f"DP-SGD: Poisson sampling q = B/N = {b}/{n} = {q:.6g}, {steps} steps "
          f"({args.epochs:g} epochs), clip C = {args.clip:g}")
    print(f"noise multiplier sigma = {sigma:.6f} (dpkit.calibrate_noise: the smallest sigma whose "
          f"certified eps <= {args.target_epsilon:g} at delta = {args.delta:g}: "
          f"eps <= {cal.epsilon.value:.6f} there); noise std sigma*C = {sigma * args.clip:.6g}")

    # What the run really does; the accountant is told sigma and C either way.
    clip_used = math.inf if args.broken == "no-clip" else args.clip
    noise_used = sigma * args.clip / (10 if args.broken == "noise" else 1)
    if args.broken != "none":
        print(f"BROKEN RUN ({args.broken}): "
              + ("gradients are not clipped" if args.broken == "no-clip"
                 else f"noise std {noise_used:.6g}, 10x below sigma*C")
              + "; the accountant still claims the calibrated epsilon")
    if canaries is not None:
        print(f"canaries: {args.canaries} "
              + ("mislabelled test images" if args.canary_kind == "mislabelled"
                 else "random-pixel images with random labels") + ", "
              f"{int(canaries['member'].sum())} inserted by fair coins (N = {n} with them)")

    model = make_model()
    white_box = (GradientScores(canaries, args.clip, args.per_example)
                 if canaries is not None and args.score == "gradient" else None)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    schedule = (torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
                if args.lr_schedule == "cosine" else None)
    accountant = PLDAccountant()
    gen = torch.Generator().manual_seed(args.seed + 1)  # sampling and noise
    # Epoch e ends after step ⌈e·N/B⌉ (the last, possibly partial, epoch at `steps`).
    n_epochs = math.ceil(args.epochs)
    epoch_ends = [min(steps, math.ceil(e * n / b)) for e in range(1, n_epochs + 1)]
    rows = ["epoch,step,test_accuracy,eps_lower,eps_upper,delta,seconds"]
    t_train = time.perf_counter()
    step = 0
    batch_sizes = []
    for epoch, end in enumerate(epoch_ends, start=1):
        while step < end:
            idx = (torch.rand(n, generator=gen) < q).nonzero().squeeze(1)  # Poisson sampling
            batch_sizes.append(int(idx.numel()))
            if idx.numel():
                grads = per_example_grads(model, x_train[idx], y_train[idx], args.per_example)
            else:  # an empty batch is still a step: the update is noise alone
                grads = [torch.zeros((0, *p.shape)) for p in model.parameters()]
            noisy = clipped_noisy_gradient(grads, clip_used, noise_used, b, gen)
            if white_box is not None:
                white_box.observe(model, noisy, b)
            for p, g in zip(model.parameters(), noisy):
                p.grad = g
            opt.step()
            if schedule is not None:
                schedule.step()
            accountant.step(noise_multiplier=sigma, sample_rate=q)
            step += 1
        acc = accuracy(model, x_test, y_test)
        lo, hi = accountant.get_epsilon_bounds(args.delta)
        elapsed = time.perf_counter() - t_train
        print(f"epoch {epoch:2d}/{n_epochs}  step {step:5d}  test accuracy {100 * acc:5.2f}%  "
              f"certified eps in [{lo:.4f}, {hi:.4f}] at delta = {args.delta:g}  "
              f"elapsed {elapsed:6.1f} s", flush=True)
        rows.append(f"{epoch},{step},{acc!r},{lo!r},{hi!r},{args.delta!r},{elapsed:.1f}")

    if args.csv is not None:
        Path(args.csv).write_text("\n".join(rows) + "\n")
    print(f"batch sizes drawn: mean {np.mean(batch_sizes):.1f}, min {min(batch_sizes)}, "
          f"max {max(batch_sizes)} (expected B = {b})")
    print(f"final: steps={len(accountant)} noise_multiplier={sigma!r} sample_rate={q!r} "
          f"delta={args.delta!r} eps_lower={lo!r} eps_upper={hi!r} test_accuracy={acc!r} "
          f"seconds={time.perf_counter() - t_start:.1f}")
    if canaries is None:
        return 0
    scores = white_box.scores if white_box is not None else canary_scores(model, canaries)
    return audit_canaries(dpkit, scores, canaries, args, claimed=hi)


if __name__ == "__main__":
    sys.exit(main())
