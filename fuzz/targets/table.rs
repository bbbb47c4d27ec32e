/// Endgame table files (`.jztb`), framed as the model files are (see model_file): as they are,
/// or re-framed with a valid checksum so the header and the deflated codes are reached. A
/// table that decodes is probed at every entry's code.
pub fn run(data: &[u8]) {
    use junglezero::store::framed;
    use junglezero::tb::{Table, Value};
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        let format = framed::Format { magic: *b"JZTB", version: 1, what: "tablebase file" };
        let mut out = framed::begin(&format, rest.len());
        out.extend_from_slice(rest);
        framed::seal(out)
    };
    if let Ok(t) = Table::from_bytes(&bytes) {
        assert_eq!(t.codes.len(), junglezero::tb::index::table_len(t.material.count()));
        for &c in t.codes.iter().take(4096) {
            let _ = Value::from_code(c).map(|v| v.to_string());
        }
    }
}
