"""INT8 study library: the digits CNN with its seeded data splits and training, and the quantized peers (ORT QDQ, TFLite full-integer, TVM's import of QDQ)."""
