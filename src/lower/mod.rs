//! AMDGPU code generated from layouts.
