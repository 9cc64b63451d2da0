"""Display names of models, engines and search spaces (words of the pages)."""

MODEL_ZH = {"digits_cnn": "digits CNN", "resnet18_v1": "ResNet-18", "inception_v1": "Inception v1", "mobilenet_v2": "MobileNetV2",
            "resnet50": "ResNet-50"}
ENGINE_ZH = {"tf": "TensorFlow", "ort": "ONNX Runtime", "tflite": "TFLite", "tvm_b": "TVM B 组",
             "tvm_c": "TVM C 组", "tvm_d": "TVM D 组", "tvm_d_prepack": "TVM D 组（预打包）"}


def model_zh(model):
    return MODEL_ZH.get(model, model)


def engine_zh(engine):
    return ENGINE_ZH.get(engine, engine)


SPACE_ZH = {"autotuned": "MetaSchedule 默认搜索空间", "autotuned_microkernel": "MetaSchedule 微内核搜索空间"}
