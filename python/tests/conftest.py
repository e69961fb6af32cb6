# The CPU tests run without a GPU on every machine: CUDA sees no device, so
# init fails the same way on a GPU machine as on one without.
import os

os.environ["CUDA_VISIBLE_DEVICES"] = ""
