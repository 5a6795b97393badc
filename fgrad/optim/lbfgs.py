"""LBFGS: limited-memory BFGS on the parameters as one flat vector, with torch's fixed step or its
strong-Wolfe line search (both ported from minFunc through torch/optim, step for step)."""
import numpy as np

from ..autograd.grad_mode import enable_grad, no_grad
from ..typing import Callable
from .optimizer import _R, Optimizer, ParamsT, _check_lr, _real

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """L-BFGS with torch.optim.LBFGS's options; step(closure) runs up to max_iter iterations.

    Its state (the curvature history, the last direction and step) is global, kept, as
    torch's, under the first parameter; one parameter group only.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0, -2.0]))
    >>> opt = fgrad.optim.LBFGS([w])
    >>> def closure():
    ...     opt.zero_grad(); loss = ((w - 3.0) ** 2).sum(); loss.backward()
    ...     return loss
    >>> _ = opt.step(closure); bool(fgrad.allclose(w.data, fgrad.tensor([3.0, 3.0])))
    True
    """

    _state_like_params = False  # flat vectors over all the parameters

    def __init__(self, params: ParamsT, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        _check_lr(lr)
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', not {line_search_fn!r}")
        max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        return np.concatenate([np.zeros_like(_real(p.primal)).ravel() if p.grad is None
                               else _real(p.grad.primal).ravel() for p in self._params])

    def _add(self, t, d):
        """params += t * d, d a flat vector."""
        offset = 0
        for p in self._params:
            x = _real(p.primal)
            x += t * d[offset:offset + x.size].reshape(x.shape)
            offset += x.size
            p._version_counter.value += 1

    def _set(self, values):
        for p, v in zip(self._params, values):
            p.primal[...] = v
            p._version_counter.value += 1

    def _evaluate(self, closure, x, t, d):
        """(loss, flat gradient) at x + t d; the parameters are left at x."""
        self._add(t, d)
        with enable_grad():
            loss = float(closure())
        grad = self._flat_grad()
        self._set(x)
        return loss, grad

    def step(self, closure: Callable[[], _R] | None = None) -> _R:
        """Up to max_iter L-BFGS iterations; `closure` clears the gradients, computes the loss,
        calls backward() and returns the loss. Returns the loss before the first iteration."""
        if closure is None:
            raise RuntimeError("LBFGS.step requires a closure that reevaluates the model and returns the loss")
        self._opt_called = True
        with no_grad():
            return self._iterate(closure, self.param_groups[0])

    def _iterate(self, closure, group):
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change, history = group["tolerance_grad"], group["tolerance_change"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tol_grad:
            return orig_loss
        d, t, old_dirs, old_stps, ro, h_diag, prev_grad, prev_loss = (
            state.get(k) for k in ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"))
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = -flat_grad, [], [], [], 1
            else:
                y, s = flat_grad - prev_grad, d * t
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only where the curvature is positive
                    if len(old_dirs) == history:
                        old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
                    old_dirs.append(y), old_stps.append(s), ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                al = state.setdefault("al", [None] * history)
                d = _two_loop(-flat_grad, old_dirs, old_stps, ro, h_diag, al)
            prev_grad = flat_grad.copy()
            prev_loss = loss
            t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tol_change:  # not a descent direction any more
                break
            ls_evals = 0
            if group["line_search_fn"] == "strong_wolfe":
                x = [p.primal.copy() for p in self._params]
                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    lambda x, t, d: self._evaluate(closure, x, t, d), x, t, d, loss, flat_grad, gtd,
                    tolerance_change=tol_change, max_ls=max_eval - evals)
                self._add(t, d)
                opt_cond = np.abs(flat_grad).max() <= tol_grad
            else:
                self._add(t, d)
                opt_cond = False
                if n_iter != max_iter:  # (torch's: no evaluation after the last fixed step)
                    with enable_grad():
                        loss = float(closure())
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if (n_iter == max_iter or evals >= max_eval or opt_cond or np.abs(d * t).max() <= tol_change
                    or abs(loss - prev_loss) < tol_change):
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag, prev_flat_grad=prev_grad,
                     prev_loss=prev_loss)
        return orig_loss


def _two_loop(q, old_dirs, old_stps, ro, h_diag, al):
    """The L-BFGS inverse-Hessian approximation times q (the two-loop recursion); q is consumed."""
    for i in range(len(old_dirs) - 1, -1, -1):
        al[i] = old_stps[i].dot(q) * ro[i]
        q -= al[i] * old_dirs[i]
    r = q * h_diag
    for i in range(len(old_dirs)):
        r += (al[i] - old_dirs[i].dot(r) * ro[i]) * old_stps[i]
    return r


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through two points' values and slopes, clipped to `bounds`."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = np.sqrt(d2_square)
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


def _strong_wolfe(obj, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step t along d meeting the strong Wolfe conditions: (loss, gradient, t, evaluations)."""
    d_norm = np.abs(d).max()
    f_new, g_new = obj(x, t, d)
    evals, ls_iter = 1, 0
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    # Bracket: grow t until an interval is known to hold a point meeting the conditions.
    while ls_iter < max_ls:
        rises = f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev)
        if not rises and abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, done = [t], [f_new], [g_new], True
            break
        if rises or gtd_new >= 0:
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                          bounds=(t + 0.01 * (t - t_prev), t * 10))
        f_prev, g_prev, gtd_prev = f_new, g_new, gtd_new
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    # Zoom: shrink the bracket until a point in it meets the conditions.
    insuf_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # Too close to an end of the bracket (twice, or outside it): step 10% of it inside.
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:  # the old high end becomes the low one
                bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = (
                    bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low])
            bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = t, f_new, g_new, gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals
