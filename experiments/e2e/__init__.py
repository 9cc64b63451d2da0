"""End-to-end study library: Keras CNNs from a seed, exported to ONNX and TFLite,
run on TensorFlow, ONNX Runtime, TFLite and TVM (Relax) behind one interface.

* :mod:`experiments.e2e.models` -- model builders, sample inputs, exporters.
* :mod:`experiments.e2e.engines` -- runners, TVM import/compile/op profile,
  and the agreement metric.

This package is a library: it records nothing and times nothing by itself.
"""
