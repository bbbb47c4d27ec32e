/// Model files: the first byte chooses between the bytes as they are and the bytes as the body
/// of a correctly framed file (so the search gets past the checksum); a file that decodes is
/// built into a network or refused.
pub fn run(data: &[u8]) {
    use junglezero::nn::modelfile::{MODEL_FORMAT, build, decode};
    use junglezero::store::framed;
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        let mut out = framed::begin(&MODEL_FORMAT, rest.len());
        out.extend_from_slice(rest);
        framed::seal(out)
    };
    if let Ok((meta, weights)) = decode(&bytes, "fuzz.jzm") {
        let device = junglezero::nn::device::parse_device("flex").expect("the CPU backend");
        let _ = build(&meta, weights, &device, "fuzz.jzm");
    }
}
