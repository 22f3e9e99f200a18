// TEMPORARY stand-in for `ndb lsp` until src/main.rs is wired; removed before handing over.
fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut config = ndb_lsp::LspConfig::default();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "lsp" => {}
            "--model" => config.model.path = args.next().map(Into::into),
            "--samples" => config.model.samples = args.next().unwrap_or_default().parse()?,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    ndb_lsp::run_stdio(config)
}
