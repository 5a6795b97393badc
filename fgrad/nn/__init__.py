"""fgrad.nn: torch.nn's modules and their API.

- module.py: Module (registration, traversal, state dicts, to(), hooks) and Parameter.
- meta.py: the meta device of Module.to('meta'): shapes and dtypes without values.
- containers.py: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.
- modules.py: the layers: Linear, Identity, Flatten, Unflatten.
- activation.py: the activations (ReLU, GELU, Softmax, PReLU, ...), each function beside its Module.
- loss.py: the losses (CrossEntropyLoss, NLLLoss, BCEWithLogitsLoss, KLDivLoss, ...), function and Module.
- conv.py: the convolutions (Conv1d, Conv2d, ConvTranspose2d), each function beside its Module.
- pooling.py: the pools (MaxPool1d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d), function and Module.
- normalization.py: BatchNorm1d/2d, LayerNorm, GroupNorm, RMSNorm, function and Module.
- dropout.py: Dropout and Dropout2d, function and Module.
- padding.py: F.pad (constant, reflect, replicate, circular) and the Zero/Constant/Reflection/Replication/CircularPad
  1d, 2d and 3d Modules.
- distance.py: F.normalize, cosine_similarity, pairwise_distance, pdist, and CosineSimilarity, PairwiseDistance.
- encoding.py: F.one_hot (no Module, as in torch).
- sparse.py: Embedding and its function.
- parameters.py: new parameters' values (torch's initializations) and constants on an input's device.
- functional.py: fgrad.nn.functional: the functions of every layer, activation and loss, by torch's names.
- init.py: fgrad.nn.init: torch.nn.init's initializers (xavier, kaiming, orthogonal, ...) and calculate_gain.
- rnn.py: RNN, LSTM, GRU and their cells (torch's parameter names and numbers).
- attention.py: MultiheadAttention and its functions (scaled_dot_product_attention, ...).
- transformer.py: TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder, Transformer.
- upsampling.py: F.interpolate (and the deprecated F.upsample*), Upsample, UpsamplingNearest2d, UpsamplingBilinear2d.
- utils.py: fgrad.nn.utils: gradient clipping, parameters_to_vector, vector_to_parameters.
- parallel/: fgrad.nn.parallel: DistributedDataParallel (on fgrad.distributed).
"""
from . import functional, init, parallel, utils
from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .attention import MultiheadAttention
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import Dropout, Dropout2d
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Module, Parameter
from .modules import Flatten, Identity, Linear, Unflatten
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm, RMSNorm
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool1d, MaxPool2d
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell
from .sparse import Embedding
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = [
           "AdaptiveAvgPool2d",
           "AvgPool2d",
           "BatchNorm1d",
           "BatchNorm2d",
           "Conv1d",
           "Conv2d",
           "ConvTranspose2d",
           "CrossEntropyLoss",
           "Dropout",
           "Dropout2d",
           "Embedding",
           "Flatten",
           "GroupNorm",
           "Identity",
           "LayerNorm",
           "Linear",
           "MSELoss",
           "MaxPool1d",
           "MaxPool2d",
           "Module",
           "ModuleDict",
           "ModuleList",
           "Parameter",
           "ParameterDict",
           "ParameterList",
           "RMSNorm",
           "ReLU",
           "Sequential",
           "Sigmoid",
           "Tanh",
           "Unflatten",
           "functional",
           "init",
           "parallel",
           "utils",
]
__all__ += ["ELU", "GELU", "SELU", "BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "GaussianNLLLoss",
            "Hardtanh", "HuberLoss", "KLDivLoss", "L1Loss", "LeakyReLU", "LogSigmoid", "LogSoftmax",
            "MarginRankingLoss", "Mish", "NLLLoss", "PReLU", "ReLU6", "SiLU", "SmoothL1Loss", "Softmax", "Softmin",
            "Softplus"]
__all__ += ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell"]
__all__ += ["MultiheadAttention", "TransformerEncoderLayer"]
__all__ += ["CELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "RReLU", "Softshrink", "Softsign", "Tanhshrink",
            "Threshold"]
__all__ += ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
            "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
            "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]
__all__ += ["CosineSimilarity", "PairwiseDistance"]
__all__ += ["HingeEmbeddingLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
            "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"]
__all__ += ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder"]
__all__ += ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
