"""The digits CNN of the INT8 study: seeded data splits, model, training, accuracy.

A real accuracy needs a real task.  scikit-learn's ``load_digits`` ships
1,797 handwritten digits (8x8 grayscale, 16 grey levels, 10 classes) inside
the package, so nothing is downloaded.  The study trains a small CNN on it
inside the experiment, then quantizes it (ours, ONNX Runtime, TFLite) and
compares FP32 and INT8 accuracy on the same evaluation images.

* :func:`splits` -- stratified train / calibration / evaluation split from a
  seed (about 60 / 10 / 30 %).  The calibration images feed INT8
  calibration only; they are never trained on and never scored.
* :func:`build_cnn` -- Conv(16)-Conv(32)-MaxPool-Conv(64)-Flatten-Dense(64)-
  Dense(10) on ``(N, 8, 8, 1)`` float32, **logits** out (no softmax).
* :func:`train` -- Adam, fixed epochs and batch size, TF op determinism on
  while it trains; returns what the record needs (losses, accuracies,
  seconds, whether determinism was in force).
* :func:`calib_batches` -- the calibration images as a list of batches,
  the form the peers' calibrators take.
* :func:`accuracy` -- top-1 accuracy of logits against labels.

Exporters for this model (its input is not the e2e study's ``(S, S, 3)``)
are in :mod:`experiments.int8.peers`.  Nothing here times anything for
publication; ``train`` reports its own wall time as a fact about training.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

IMAGE_SHAPE = (8, 8, 1)
NUM_CLASSES = 10
PIXEL_MAX = 16.0            # load_digits pixels are integers 0..16
EVAL_FRACTION = 0.30
CALIB_FRACTION = 0.10
EPOCHS = 15
BATCH_SIZE = 64
LEARNING_RATE = 3e-3
INPUT_NAME = "input"


def _keras():
    """Import Keras with TensorFlow's oneDNN/INFO chatter turned down."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import keras
    return keras


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def splits(seed: int = 0) -> dict[str, Any]:
    """scikit-learn's digits as float32 NHWC in [0, 1], split three ways with ``seed``.

    Returns ``x_train, y_train, x_calib, y_calib, x_eval, y_eval`` (images
    ``(N, 8, 8, 1)`` float32 = pixel / 16, labels int64), ``idx_train,
    idx_calib, idx_eval`` (row numbers into ``load_digits()``, so the split
    can be recorded and checked), ``counts`` (``{"total", "train", "calib",
    "eval"}``) and ``seed``.  Both cuts are stratified by label: evaluation
    takes ``round(0.30 * N)`` images first, calibration then takes
    ``round(0.10 * N)`` of the rest, training keeps what is left.
    ``y_calib`` is there for checks only; calibration uses no labels.
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    images = (digits.images.astype(np.float32) / PIXEL_MAX)[..., None]
    labels = digits.target.astype(np.int64)
    n = len(labels)
    index = np.arange(n)
    rest, idx_eval = train_test_split(index, test_size=int(round(EVAL_FRACTION * n)),
                                      stratify=labels, random_state=seed)
    idx_train, idx_calib = train_test_split(rest, test_size=int(round(CALIB_FRACTION * n)),
                                            stratify=labels[rest], random_state=seed)
    out: dict[str, Any] = {"seed": int(seed)}
    for name, idx in (("train", idx_train), ("calib", idx_calib), ("eval", idx_eval)):
        idx = np.sort(idx)
        out[f"idx_{name}"] = idx
        out[f"x_{name}"] = np.ascontiguousarray(images[idx])
        out[f"y_{name}"] = labels[idx]
    out["counts"] = {"total": n, "train": len(idx_train), "calib": len(idx_calib),
                     "eval": len(idx_eval)}
    return out


def calib_batches(data: dict[str, Any], batch: int = 1, limit: int | None = None) -> list[np.ndarray]:
    """The calibration images as a list of ``(batch, 8, 8, 1)`` float32 arrays.

    ``limit`` caps the number of images (all by default).  The last batch
    may be smaller when ``batch`` does not divide the count.
    """
    x = data["x_calib"] if limit is None else data["x_calib"][:limit]
    return [np.ascontiguousarray(x[i:i + batch]) for i in range(0, len(x), batch)]


# ---------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------


def build_cnn(seed: int = 0):
    """The digits CNN with initial weights from ``seed``; returns a ``keras.Model``.

    ``(N, 8, 8, 1)`` float32 -> Conv 3x3 same 16 + ReLU -> Conv 3x3 same 32 +
    ReLU -> MaxPool 2 -> Conv 3x3 same 64 + ReLU -> Flatten (4*4*64 = 1024)
    -> Dense 64 + ReLU -> Dense 10 (logits).  Every conv and dense has a
    bias; ReLU is fused into the layer (``activation="relu"``), which the
    ONNX and TFLite exporters keep as conv + bias + relu.  Flatten rather
    than global pooling: the first dense is then a real 1024x64 matmul for
    the integer path, and accuracy is higher on 8x8 inputs.
    """
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inputs = keras.Input(IMAGE_SHAPE, name=INPUT_NAME)
    x = layers.Conv2D(16, 3, padding="same", activation="relu", name="conv1")(inputs)
    x = layers.Conv2D(32, 3, padding="same", activation="relu", name="conv2")(x)
    x = layers.MaxPooling2D(2, name="pool")(x)
    x = layers.Conv2D(64, 3, padding="same", activation="relu", name="conv3")(x)
    x = layers.Flatten(name="flatten")(x)
    x = layers.Dense(64, activation="relu", name="fc1")(x)
    outputs = layers.Dense(NUM_CLASSES, name="logits")(x)
    return keras.Model(inputs, outputs, name="digits_cnn")


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------


def _determinism_enabled() -> bool:
    """Whether TF op determinism is on.

    TF 2.21 exports only the setter (``tf.config.experimental.
    enable_op_determinism``); the query and ``disable_op_determinism`` live
    in ``tensorflow.python.framework.config``.
    """
    from tensorflow.python.framework import config as tf_config
    return bool(tf_config.is_op_determinism_enabled())


def enable_determinism() -> bool:
    """Turn on TF op determinism; return whether it is in force.

    ``tf.config.experimental.enable_op_determinism`` makes TF pick
    deterministic kernels (and raise on ops that have none) for the whole
    process.  :func:`train` turns it back off afterwards if it was off.
    """
    import tensorflow as tf
    try:
        tf.config.experimental.enable_op_determinism()
    except Exception:  # noqa: BLE001 -- an old or stripped TF build; recorded as False
        return False
    return _determinism_enabled()


def train(model, data: dict[str, Any], epochs: int = EPOCHS, seed: int = 0,
          batch_size: int = BATCH_SIZE, learning_rate: float = LEARNING_RATE) -> dict[str, Any]:
    """Train ``model`` on ``data["x_train"]`` with sparse categorical cross-entropy on logits.

    Adam (``learning_rate``), ``batch_size``, ``epochs`` full passes,
    shuffling from ``seed`` (``keras.utils.set_random_seed`` is called
    first).  TF op determinism is switched on for the duration of ``fit``
    and restored afterwards (it is process-wide); with it the same seed
    gives bit-identical weights on this CPU (tests/test_int8_peers.py
    checks that).

    Returns ``epochs, batch_size, optimizer, learning_rate, loss, seed,
    deterministic`` (whether TF op determinism was in force),
    ``train_loss`` (final epoch's mean training loss), ``loss_history``,
    ``train_accuracy`` and ``eval_accuracy`` (recomputed on the trained
    model in inference mode, not Keras' running metric), ``counts`` and
    ``seconds`` (wall time of ``fit``; a fact about training, not a
    published timing).  The calibration images are not touched.
    """
    keras = _keras()
    was_deterministic = _determinism_enabled()
    deterministic = enable_determinism()
    keras.utils.set_random_seed(seed)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=learning_rate),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    try:
        t0 = time.perf_counter()
        history = model.fit(data["x_train"], data["y_train"], epochs=int(epochs),
                            batch_size=int(batch_size), shuffle=True, verbose=0)
        seconds = time.perf_counter() - t0
    finally:
        if deterministic and not was_deterministic:
            from tensorflow.python.framework import config as tf_config
            tf_config.disable_op_determinism()
    losses = [float(v) for v in history.history["loss"]]
    return {
        "epochs": int(epochs),
        "batch_size": int(batch_size),
        "optimizer": "adam",
        "learning_rate": float(learning_rate),
        "loss": "sparse_categorical_crossentropy(from_logits=True)",
        "seed": int(seed),
        "deterministic": deterministic,
        "train_loss": losses[-1],
        "loss_history": losses,
        "train_accuracy": accuracy(predict(model, data["x_train"]), data["y_train"]),
        "eval_accuracy": accuracy(predict(model, data["x_eval"]), data["y_eval"]),
        "counts": dict(data["counts"]),
        "seconds": seconds,
    }


def predict(model, images: np.ndarray, batch_size: int = 256) -> np.ndarray:
    """Float32 logits of ``model`` on ``images`` (inference mode)."""
    return np.asarray(model.predict(images, batch_size=batch_size, verbose=0), dtype=np.float32)


def accuracy(logits: np.ndarray, labels: np.ndarray) -> float:
    """Fraction of rows whose arg-max logit equals the label."""
    logits = np.asarray(logits)
    labels = np.asarray(labels).reshape(-1)
    if logits.ndim != 2 or len(logits) != len(labels):
        raise ValueError(f"logits {logits.shape} do not match labels {labels.shape}")
    return float(np.mean(logits.argmax(axis=1) == labels))
