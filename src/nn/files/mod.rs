//! The network's files: the model file (`.jzm`), exports (safetensors with a JSON and NumPy
//! sidecar, ONNX) and the import of an export back into a model file.

pub mod export;
pub mod import;
pub mod modelfile;
pub mod onnx;
