"""attn-convert: PyTorch / NumPy attention weights -> attn model blob and C++ header."""
