"""Keras CNNs with weights from a seed, sample inputs, and ONNX / TFLite exporters.

No pretrained weights: every model is built with ``keras.utils.set_random_seed``
and then gets seeded, non-trivial batch-norm statistics (so BN folding is
actually exercised by every engine).  All models are channels-last
``(N, S, S, 3)`` float32 -> ``(N, num_classes)`` float32 **logits** (no
softmax: logits keep the engines' numerical differences visible, softmax
would squash them).

Models (``name`` for :func:`build`):

* ``resnet18_v1`` -- ResNet v1-18 (He et al. 2015): 7x7/2 stem, 3x3/2 max
  pool, four stages of two BasicBlocks (64/128/256/512), projection
  shortcuts (1x1 conv + BN) where the shape changes, global average pool,
  dense.  Stride-2 convolutions use explicit symmetric zero padding
  (torchvision's layout) rather than TF's asymmetric ``"same"``.
* ``inception_v1`` -- GoogLeNet (Szegedy et al. 2014) without the auxiliary
  heads: paper channel table, 5x5 third branch, conv + bias + ReLU (the
  paper has no batch norm), no LRN (Keras has no LRN layer and later
  reproductions drop it), dropout before the classifier (inactive at
  inference).
* ``resnet50`` -- ``keras.applications.ResNet50(weights=None)``.
* ``mobilenet_v2`` -- ``keras.applications.MobileNetV2(weights=None)``
  (alpha 1.0).

Hand-built convolutions use He-normal initialisation so activations keep
their scale through the depth; the two ``keras.applications`` models keep
Keras' own initialisers.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

MODEL_NAMES = ("resnet18_v1", "inception_v1", "resnet50", "mobilenet_v2")
NATURAL_IMAGES = ("astronaut", "coffee", "chelsea", "rocket")
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
INPUT_NAME = "input"

# GoogLeNet inception modules: (name, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool proj)
_INCEPTION_TABLE = (
    ("3a", 64, 96, 128, 16, 32, 32),
    ("3b", 128, 128, 192, 32, 96, 64),
    ("pool3",),
    ("4a", 192, 96, 208, 16, 48, 64),
    ("4b", 160, 112, 224, 24, 64, 64),
    ("4c", 128, 128, 256, 24, 64, 64),
    ("4d", 112, 144, 288, 32, 64, 64),
    ("4e", 256, 160, 320, 32, 128, 128),
    ("pool4",),
    ("5a", 256, 160, 320, 32, 128, 128),
    ("5b", 384, 192, 384, 48, 128, 128),
)


def _keras():
    """Import Keras with TensorFlow's oneDNN/INFO chatter turned down."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import keras
    return keras


# ---------------------------------------------------------------------------
# Builders
# ---------------------------------------------------------------------------


def build(name: str, seed: int = 0, input_size: int = 224, num_classes: int = 1000):
    """Build model ``name`` with weights from ``seed``; returns a ``keras.Model``.

    ``input_size`` is the square input side (224 for the study; tests use a
    smaller one, which every model here accepts down to 32).  The same
    ``(name, seed, input_size, num_classes)`` always gives the same weights.
    """
    keras = _keras()
    keras.utils.set_random_seed(seed)
    shape = (input_size, input_size, 3)
    if name == "resnet18_v1":
        model = resnet18_v1(shape, num_classes)
    elif name == "inception_v1":
        model = inception_v1(shape, num_classes)
    elif name == "resnet50":
        model = keras.applications.ResNet50(weights=None, input_shape=shape, classes=num_classes,
                                            classifier_activation=None)
    elif name == "mobilenet_v2":
        model = keras.applications.MobileNetV2(weights=None, input_shape=shape, classes=num_classes,
                                               classifier_activation=None)
    else:
        raise ValueError(f"unknown model {name!r}; expected one of {MODEL_NAMES}")
    randomize_batch_norm(model, np.random.default_rng(seed))
    return model


def randomize_batch_norm(model, rng: np.random.Generator) -> int:
    """Give every BatchNormalization layer seeded inference statistics; return how many.

    Fresh Keras BN layers are the identity (mean 0, variance 1, gamma 1,
    beta 0), which would let an engine get BN folding wrong unnoticed.
    gamma ~ U(0.5, 1.5), beta ~ N(0, 0.1), mean ~ N(0, 0.1), var ~ U(0.5, 2).
    """
    keras = _keras()
    count = 0
    for layer in model.layers:
        if not isinstance(layer, keras.layers.BatchNormalization):
            continue
        n = int(layer.moving_mean.shape[-1])
        if layer.gamma is not None:
            layer.gamma.assign(rng.uniform(0.5, 1.5, n).astype("float32"))
        if layer.beta is not None:
            layer.beta.assign(rng.normal(0.0, 0.1, n).astype("float32"))
        layer.moving_mean.assign(rng.normal(0.0, 0.1, n).astype("float32"))
        layer.moving_variance.assign(rng.uniform(0.5, 2.0, n).astype("float32"))
        count += 1
    return count


def _conv_bn(x, filters: int, kernel: int, stride: int, name: str, relu: bool = True):
    """Conv (no bias) -> BN -> optional ReLU; stride-2 convs get symmetric zero padding."""
    layers = _keras().layers
    if stride > 1 and kernel > 1:
        x = layers.ZeroPadding2D(kernel // 2, name=f"{name}_pad")(x)
        padding = "valid"
    else:
        padding = "same"
    x = layers.Conv2D(filters, kernel, strides=stride, padding=padding, use_bias=False,
                      kernel_initializer="he_normal", name=f"{name}_conv")(x)
    x = layers.BatchNormalization(epsilon=1e-5, name=f"{name}_bn")(x)
    return layers.ReLU(name=f"{name}_relu")(x) if relu else x


def _basic_block(x, filters: int, stride: int, name: str):
    """ResNet v1 BasicBlock: two 3x3 conv-BN, projection shortcut when the shape changes."""
    layers = _keras().layers
    shortcut = x
    if stride != 1 or int(x.shape[-1]) != filters:
        shortcut = _conv_bn(x, filters, 1, stride, f"{name}_down", relu=False)
    y = _conv_bn(x, filters, 3, stride, f"{name}_a")
    y = _conv_bn(y, filters, 3, 1, f"{name}_b", relu=False)
    y = layers.Add(name=f"{name}_add")([y, shortcut])
    return layers.ReLU(name=f"{name}_out")(y)


def resnet18_v1(input_shape: tuple[int, int, int], num_classes: int):
    """ResNet v1-18 as a Keras functional model (logits output)."""
    keras = _keras()
    layers = keras.layers
    inputs = keras.Input(input_shape, name=INPUT_NAME)
    x = _conv_bn(inputs, 64, 7, 2, "stem")
    x = layers.ZeroPadding2D(1, name="stem_pool_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="stem_pool")(x)
    for stage, filters in enumerate((64, 128, 256, 512), start=1):
        for block in range(2):
            stride = 2 if stage > 1 and block == 0 else 1
            x = _basic_block(x, filters, stride, f"layer{stage}_{block}")
    x = layers.GlobalAveragePooling2D(name="avgpool")(x)
    outputs = layers.Dense(num_classes, name="logits")(x)
    return keras.Model(inputs, outputs, name="resnet18_v1")


def _conv_relu(x, filters: int, kernel: int, name: str, stride: int = 1):
    """Conv with bias -> ReLU, ``"same"`` padding (GoogLeNet's building block)."""
    layers = _keras().layers
    x = layers.Conv2D(filters, kernel, strides=stride, padding="same",
                      kernel_initializer="he_normal", bias_initializer=_bias_init(),
                      name=f"{name}_conv")(x)
    return layers.ReLU(name=f"{name}_relu")(x)


def _bias_init():
    """Small non-zero biases (N(0, 0.05)), drawn from Keras' seeded generator."""
    return _keras().initializers.RandomNormal(stddev=0.05)


def _inception(x, spec: tuple, name: str):
    """One GoogLeNet inception module: 1x1 | 1x1->3x3 | 1x1->5x5 | pool->1x1, concatenated."""
    layers = _keras().layers
    _, c1, c3r, c3, c5r, c5, cp = spec
    b1 = _conv_relu(x, c1, 1, f"{name}_1x1")
    b3 = _conv_relu(_conv_relu(x, c3r, 1, f"{name}_3x3r"), c3, 3, f"{name}_3x3")
    b5 = _conv_relu(_conv_relu(x, c5r, 1, f"{name}_5x5r"), c5, 5, f"{name}_5x5")
    bp = layers.MaxPooling2D(3, strides=1, padding="same", name=f"{name}_pool")(x)
    bp = _conv_relu(bp, cp, 1, f"{name}_poolproj")
    return layers.Concatenate(axis=-1, name=f"{name}_concat")([b1, b3, b5, bp])


def inception_v1(input_shape: tuple[int, int, int], num_classes: int):
    """GoogLeNet (Inception v1) without auxiliary heads, as a Keras functional model (logits)."""
    keras = _keras()
    layers = keras.layers
    inputs = keras.Input(input_shape, name=INPUT_NAME)
    x = _conv_relu(inputs, 64, 7, "conv1", stride=2)
    x = layers.MaxPooling2D(3, strides=2, padding="same", name="pool1")(x)
    x = _conv_relu(x, 64, 1, "conv2r")
    x = _conv_relu(x, 192, 3, "conv2")
    x = layers.MaxPooling2D(3, strides=2, padding="same", name="pool2")(x)
    for spec in _INCEPTION_TABLE:
        if len(spec) == 1:
            x = layers.MaxPooling2D(3, strides=2, padding="same", name=spec[0])(x)
        else:
            x = _inception(x, spec, f"inception{spec[0]}")
    x = layers.GlobalAveragePooling2D(name="avgpool")(x)
    x = layers.Dropout(0.4, name="dropout")(x)
    outputs = layers.Dense(num_classes, name="logits")(x)
    return keras.Model(inputs, outputs, name="inception_v1")


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def natural_image(name: str, size: int) -> np.ndarray:
    """One scikit-image sample picture: centre-cropped square, resized, float32 in [0, 1]."""
    from skimage import data, transform
    img = getattr(data, name)()[..., :3]
    h, w = img.shape[:2]
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    img = img[top:top + side, left:left + side].astype(np.float64) / 255.0
    img = transform.resize(img, (size, size), order=1, anti_aliasing=True)
    return img.astype(np.float32)


def normalize(images: np.ndarray) -> np.ndarray:
    """ImageNet mean/std normalisation of NHWC images in [0, 1] (float32)."""
    mean = np.asarray(IMAGENET_MEAN, dtype=np.float32)
    std = np.asarray(IMAGENET_STD, dtype=np.float32)
    return ((images - mean) / std).astype(np.float32)


def sample_inputs(n: int, seed: int = 0, input_size: int = 224) -> np.ndarray:
    """``n`` normalised NHWC float32 images, shape ``(n, S, S, 3)``.

    The first ``min(n, 4)`` are the scikit-image pictures in
    :data:`NATURAL_IMAGES` order (shipped with the package, nothing is
    downloaded); the rest are uniform pixel noise from ``seed``.  Both go
    through the same :func:`normalize`.
    """
    natural = [natural_image(name, input_size) for name in NATURAL_IMAGES[:n]]
    rng = np.random.default_rng(seed)
    noise = rng.uniform(0.0, 1.0, (n - len(natural), input_size, input_size, 3)).astype(np.float32)
    images = np.concatenate([np.stack(natural)] + [noise], axis=0) if natural else noise
    return normalize(images)


# scikit-image's shipped pictures (nothing is downloaded): colour ones, then grey ones as RGB
AGREEMENT_PICTURES = ("astronaut", "coffee", "chelsea", "rocket", "hubble_deep_field", "immunohistochemistry",
                      "retina", "colorwheel", "camera", "coins", "moon", "brick", "grass", "gravel", "clock", "page")
# the other shipped pictures, none of them in the agreement set: calibration crops come from these
CALIBRATION_PICTURES = ("cat", "motorcycle_left", "motorcycle_right", "logo", "cell", "text", "microaneurysms")


def _picture(name: str) -> np.ndarray:
    """One shipped scikit-image picture as float64 RGB in [0, 1] (grey repeated, alpha dropped)."""
    from skimage import data
    if name in ("motorcycle_left", "motorcycle_right"):
        img = data.stereo_motorcycle()[0 if name == "motorcycle_left" else 1]
    else:
        img = getattr(data, name)()
    img = np.repeat(img[..., None], 3, axis=2) if img.ndim == 2 else img[..., :3]
    return img.astype(np.float64) / 255.0


def crop_inputs(n: int, seed: int = 0, input_size: int = 224,
                pictures: tuple[str, ...] = AGREEMENT_PICTURES) -> tuple[np.ndarray, list[str]]:
    """``n`` normalised NHWC images, each a seeded random crop (a square of 25-100 % of the picture's
    short side, anywhere in it, mirrored half of the time) of one of ``pictures`` in turn, resized to
    ``input_size``; and a label per image.

    Many inputs that look like photographs: with :data:`AGREEMENT_PICTURES` (the default) the
    agreement set, on which a quantized network's top-1 is compared with its FP32 original; with
    :data:`CALIBRATION_PICTURES` the calibration set, cut from pictures the agreement set never shows.
    """
    from skimage import transform
    rng = np.random.default_rng(seed)
    loaded = {}
    images, labels = [], []
    for i in range(n):
        name = pictures[i % len(pictures)]
        if name not in loaded:
            loaded[name] = _picture(name)
        img = loaded[name]
        h, w = img.shape[:2]
        side = int(min(h, w) * rng.uniform(0.25, 1.0))
        top, left = int(rng.integers(0, h - side + 1)), int(rng.integers(0, w - side + 1))
        crop = img[top:top + side, left:left + side]
        flip = bool(rng.integers(0, 2))
        crop = crop[:, ::-1] if flip else crop
        images.append(transform.resize(crop, (input_size, input_size), order=1, anti_aliasing=True).astype(np.float32))
        labels.append(f"{name}@{top},{left}+{side}{'/flip' if flip else ''}")
    return normalize(np.stack(images)) if images else np.zeros((0, input_size, input_size, 3), np.float32), labels


def sample_names(n: int) -> list[str]:
    """Labels for the rows of ``sample_inputs(n, ...)``: picture names, then ``noise<i>``."""
    natural = list(NATURAL_IMAGES[:n])
    return natural + [f"noise{i}" for i in range(n - len(natural))]


# ---------------------------------------------------------------------------
# Exporters
# ---------------------------------------------------------------------------


def serving_function(model, batch: int | None):
    """``tf.function`` of the model's inference call for ``(batch, *model input shape)`` float32.

    The shape is the model's own (``(S, S, 3)`` for the study's networks, ``(8, 8, 1)`` for the
    INT8 study's digits CNN).  ``batch=None`` leaves the batch dimension dynamic.  The input is
    named :data:`INPUT_NAME`, the output ``logits``.
    """
    import tensorflow as tf
    shape = (batch, *(int(d) for d in model.inputs[0].shape[1:]))
    spec = tf.TensorSpec(shape, tf.float32, name=INPUT_NAME)

    @tf.function(input_signature=[spec], jit_compile=False)
    def serve(x):
        return {"logits": model(x, training=False)}

    return serve


def export_onnx(model, path: str | Path, batch: int | None = 1, opset: int = 17) -> Path:
    """Write the model as ONNX (float32) via ``tf2onnx.convert.from_function``.

    The Keras 3 model is wrapped in a ``tf.function`` with an explicit input
    signature (``tf2onnx.convert.from_keras`` expects tf.keras 2 internals).
    ``batch=None`` exports a dynamic batch dimension.  Returns ``path``.
    """
    import tf2onnx
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fn = serving_function(model, batch)
    tf2onnx.convert.from_function(fn, input_signature=fn.input_signature, opset=opset,
                                  output_path=str(path))
    return path


def export_tflite(model, path: str | Path, batch: int | None = 1) -> Path:
    """Write the model as float32 TFLite (no quantisation, no optimisation flags).

    The :func:`serving_function` concrete function is frozen (variables to
    constants) before conversion: converting the unfrozen function of a
    Keras 3 model keeps the weights as resource variables, and the
    interpreter then returns NaN (XNNPACK) or fails in READ_VARIABLE.
    ``batch=None`` keeps the batch dimension dynamic (shape signature -1);
    runners can resize either way.  Returns ``path``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(tflite_converter(model, batch).convert())
    return path


def tflite_converter(model, batch: int | None = 1):
    """``TFLiteConverter`` over the frozen :func:`serving_function` (quantizing callers add options)."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
    frozen = convert_variables_to_constants_v2(serving_function(model, batch).get_concrete_function())
    return tf.lite.TFLiteConverter.from_concrete_functions([frozen], model)
