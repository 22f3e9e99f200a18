//! TEMPORARY (not to be committed): `ndb mcp` without the CLI, to run
//! tests/mcp/client.py against the real model before src/main.rs is wired.
use std::time::Duration;

fn main() -> anyhow::Result<()> {
    let mut config = ndb_agent_tools::ServerConfig::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = || args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "mcp" => {}
            "--allow-run" => config.allow_run = true,
            "--backend" => {
                if value() == "trace" {
                    config.backend = ndb_agent_tools::Backend::Trace;
                }
                i += 1;
            }
            "--idle-timeout" => {
                config.idle_timeout = Duration::from_secs_f64(value().parse()?);
                i += 1;
            }
            "--max-sessions" => {
                config.max_sessions = value().parse()?;
                i += 1;
            }
            "--samples" => {
                config.model.samples = value().parse()?;
                i += 1;
            }
            "--model" => {
                config.model.path = Some(value().into());
                i += 1;
            }
            other => anyhow::bail!("unknown argument {other}"),
        }
        i += 1;
    }
    ndb_agent_tools::run_mcp_stdio(config)
}
