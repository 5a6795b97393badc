"""examples/digits_cnn.py's training step written by hand in NumPy: the floor for a library
whose kernels are NumPy's (issue 31's speed target). Each convolution is one matmul of the
weight with the windows (im2col, sliding_window_view) and its input gradient nine strided adds
(col2im); a 2x2 max pool is a reshape and a max, its gradient a mask; AdamW updates in place.
No autodiff, no checks, no allocations beyond the kernels' own: what a NumPy expert writes."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["NumpyCNN"]


def _conv(x, w, b):
    """(output, windows) of a 3x3 convolution, padding 1: x (N, C, H, W), w (O, C, 3, 3)."""
    n, c, h, wd = x.shape
    cols = sliding_window_view(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3))
    cols = cols.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * wd, c * 9)  # (a copy, in BLAS order)
    out = cols @ w.reshape(len(w), -1).T + b
    return out.reshape(n, h, wd, -1).transpose(0, 3, 1, 2), cols


def _conv_grads(g, x, w, cols):
    """(input, weight, bias) gradients of _conv given g, its output's gradient."""
    n, c, h, wd = x.shape
    g2 = g.transpose(0, 2, 3, 1).reshape(n * h * wd, -1)
    dw = (g2.T @ cols).reshape(w.shape)
    dcols = (g2 @ w.reshape(len(w), -1)).reshape(n, h, wd, c, 3, 3)
    dxp = np.zeros((n, c, h + 2, wd + 2), x.dtype)
    for i in range(3):
        for j in range(3):
            dxp[:, :, i:i + h, j:j + wd] += dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dxp[:, :, 1:-1, 1:-1], dw, g2.sum(0)


def _relu_pool(y):
    """(2x2 max pool of relu(y), the mask of where each maximum came from)."""
    n, c, h, w = y.shape
    r = np.maximum(y, 0).reshape(n, c, h // 2, 2, w // 2, 2)
    out = r.max(axis=(3, 5))
    mask = (r == out[:, :, :, None, :, None]) & (y.reshape(r.shape) > 0)
    return out, mask


def _unpool(g, mask):
    return (mask * g[:, :, :, None, :, None]).reshape(mask.shape[0], mask.shape[1], mask.shape[2] * 2, -1)


class NumpyCNN:
    """The model's parameters (copied from an fgrad or torch model's state_dict) and AdamW's state."""

    def __init__(self, state, lr=1e-3, weight_decay=1e-2, betas=(0.9, 0.999), eps=1e-8):
        self.p = [np.array(state[k]) for k in ("0.weight", "0.bias", "3.weight", "3.bias", "7.weight", "7.bias")]
        self.m = [np.zeros_like(p) for p in self.p]
        self.v = [np.zeros_like(p) for p in self.p]
        self.lr, self.wd, self.betas, self.eps, self.t = lr, weight_decay, betas, eps, 0

    def grads(self, x, labels):
        """(loss, the parameters' gradients) of cross-entropy at (x, labels)."""
        w1, b1, w2, b2, w3, b3 = self.p
        y1, cols1 = _conv(x, w1, b1)
        h1, mask1 = _relu_pool(y1)
        y2, cols2 = _conv(h1, w2, b2)
        h2, mask2 = _relu_pool(y2)
        flat = h2.reshape(len(x), -1)
        logits = flat @ w3.T + b3
        shifted = logits - logits.max(1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        n = len(x)
        loss = -logp[np.arange(n), labels].mean()
        g = np.exp(logp)
        g[np.arange(n), labels] -= 1
        g /= n
        dw3, db3 = g.T @ flat, g.sum(0)
        dh2 = _unpool((g @ w3).reshape(h2.shape), mask2)
        dh1, dw2, db2 = _conv_grads(dh2, h1, w2, cols2)
        _, dw1, db1 = _conv_grads(_unpool(dh1, mask1), x, w1, cols1)
        return loss, [dw1, db1, dw2, db2, dw3, db3]

    def step(self, x, labels):
        """One AdamW step (torch's formula); returns the loss."""
        loss, grads = self.grads(x, labels)
        self.t += 1
        b1, b2 = self.betas
        c1, c2 = 1 - b1 ** self.t, 1 - b2 ** self.t
        for p, g, m, v in zip(self.p, grads, self.m, self.v):
            p *= 1 - self.lr * self.wd
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= (self.lr / c1) * m / (np.sqrt(v / c2) + self.eps)
        return float(loss)
