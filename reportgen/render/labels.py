from reportgen.data.words import W
"""Display names of models, engines and search spaces (words of the pages)."""

MODEL_ZH = {"digits_cnn": "digits CNN", "resnet18_v1": "ResNet-18", "inception_v1": "Inception v1", "mobilenet_v2": "MobileNetV2",
            "resnet50": "ResNet-50"}
ENGINE_ZH = {"tf": "TensorFlow", "ort": "ONNX Runtime", "tflite": "TFLite", "tvm_b": W("labels.engine_zh.tvm_b"),
             "tvm_c": W("labels.engine_zh.tvm_c"), "tvm_d": W("labels.engine_zh.tvm_d"), "tvm_d_prepack": W("labels.engine_zh.tvm_d_prepack"),
             "tvm_rules": W("labels.engine_zh.tvm_rules"), "tvm_rules_tuned": W("labels.engine_zh.tvm_rules_tuned")}


def model_zh(model):
    return MODEL_ZH.get(model, model)


def engine_zh(engine):
    return ENGINE_ZH.get(engine, engine)


SPACE_ZH = {"autotuned": W("labels.space_zh.autotuned"), "autotuned_microkernel": W("labels.space_zh.autotuned_microkernel")}
