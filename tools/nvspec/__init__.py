"""nvspec: derive isabridge's NVIDIA SASS specs (sm50, sm86) by probing nvdisasm 12.8."""
