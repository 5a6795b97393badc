"""fgrad.optim: torch.optim's optimizers and learning-rate schedulers, with torch 2.13's options,
defaults, state_dict format and numbers.

- optimizer.py: `Optimizer`: parameter groups, state, state_dict, and the pieces every rule shares.
- sgd.py: SGD (momentum, dampening, Nesterov).
- adam.py: the Adam family: Adam, AdamW, Adamax, NAdam, RAdam.
- adaptive.py: Adagrad, RMSprop, Adadelta: steps scaled by accumulated squared gradients.
- lbfgs.py: LBFGS, with torch's strong-Wolfe line search.
- lr_scheduler.py: fgrad.optim.lr_scheduler: StepLR, CosineAnnealingLR, OneCycleLR, ReduceLROnPlateau, ...
"""
from . import lr_scheduler
from .adam import Adam, Adamax, AdamW, NAdam, RAdam
from .adaptive import Adadelta, Adagrad, RMSprop
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "lr_scheduler"]
