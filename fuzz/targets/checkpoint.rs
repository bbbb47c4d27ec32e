/// Trainer checkpoints, framed as the model files are (see model_file): decoded or refused.
pub fn run(data: &[u8]) {
    use junglezero::store::framed;
    use junglezero::train::checkpoint::{CHECKPOINT_FORMAT, decode};
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        let mut out = framed::begin(&CHECKPOINT_FORMAT, rest.len());
        out.extend_from_slice(rest);
        framed::seal(out)
    };
    let _ = decode(&bytes, "fuzz.jzc");
}
