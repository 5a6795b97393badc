"""fgrad.nn.functional: torch.nn.functional's names, written in fgrad ops (differentiable to any
order), each from the file of its Module."""
from .activation import (
    celu,
    elu,
    gelu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    log_softmax,
    logsigmoid,
    mish,
    prelu,
    relu,
    relu6,
    rrelu,
    selu,
    sigmoid,
    silu,
    softmax,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanh,
    tanhshrink,
    threshold,
)
from .attention import multi_head_attention_forward, scaled_dot_product_attention
from .conv import conv1d, conv2d, conv_transpose2d  # noqa: F401  (the layers' functions live with their Modules)
from .distance import cosine_similarity, normalize, pairwise_distance, pdist
from .dropout import dropout, dropout2d  # noqa: F401
from .encoding import one_hot
from .loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from .modules import linear
from .normalization import batch_norm, group_norm, layer_norm, rms_norm  # noqa: F401
from .padding import pad
from .pooling import adaptive_avg_pool2d, avg_pool2d, max_pool1d, max_pool2d  # noqa: F401
from .sparse import embedding  # noqa: F401
from .upsampling import interpolate, upsample, upsample_bilinear, upsample_nearest

__all__ = ["cross_entropy", "linear", "log_softmax", "mse_loss", "nll_loss", "relu", "sigmoid", "softmax", "tanh"]
__all__ += ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "elu",
            "gaussian_nll_loss", "gelu", "hardtanh", "huber_loss", "kl_div", "l1_loss", "leaky_relu", "logsigmoid",
            "margin_ranking_loss", "mish", "prelu", "relu6", "selu", "silu", "smooth_l1_loss", "softmin", "softplus"]
__all__ += ["multi_head_attention_forward", "scaled_dot_product_attention"]
__all__ += ["celu", "glu", "hardshrink", "hardsigmoid", "hardswish", "rrelu", "softshrink", "softsign", "tanhshrink",
            "threshold"]
__all__ += ["cosine_similarity", "normalize", "one_hot", "pad", "pairwise_distance", "pdist"]
__all__ += ["hinge_embedding_loss", "interpolate", "multi_margin_loss", "multilabel_margin_loss",
            "multilabel_soft_margin_loss", "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss",
            "triplet_margin_with_distance_loss", "upsample", "upsample_bilinear", "upsample_nearest"]
