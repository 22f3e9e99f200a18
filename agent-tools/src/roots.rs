//! Which files the tools may read: a `path` argument is resolved (made
//! absolute against the server's working directory, symbolic links
//! followed) and must lie inside one of the client's MCP roots, or inside
//! the server's working directory when the client declares none, or inside
//! a directory the server was started with (`ndb mcp --allow-path DIR`).
//! An agent steered by a prompt injection cannot have the server read a
//! file elsewhere, nor through a symbolic link that leads out.

use std::path::{Component, Path, PathBuf};
use std::sync::RwLock;

use crate::error::ToolError;

/// The directories `path` arguments must lie in.
#[derive(Debug)]
pub struct PathScope {
    /// The server's working directory (canonical), the default root.
    working_dir: Option<PathBuf>,
    /// `--allow-path` directories (canonical), always allowed.
    extra: Vec<PathBuf>,
    /// The client's roots (canonical), once it has declared some.
    client_roots: RwLock<Option<Vec<PathBuf>>>,
}

impl PathScope {
    /// The scope of a server in its current working directory, widened by
    /// `allow_paths` (one that does not exist widens nothing:
    /// [`crate::ServerConfig::check`] refuses it first).
    pub fn new(allow_paths: &[PathBuf]) -> PathScope {
        let extra = allow_paths
            .iter()
            .filter_map(|path| std::fs::canonicalize(path).ok())
            .collect();
        PathScope {
            working_dir: std::env::current_dir().and_then(std::fs::canonicalize).ok(),
            extra,
            client_roots: RwLock::new(None),
        }
    }

    /// Replace the client's roots by those of `uris` (`file://` URIs; other
    /// schemes name nothing the server can read and are skipped, as are
    /// directories that do not exist). No usable root: the working
    /// directory applies again.
    pub fn set_client_roots<'a>(&self, uris: impl IntoIterator<Item = &'a str>) {
        let roots: Vec<PathBuf> = uris
            .into_iter()
            .filter_map(file_uri_path)
            .filter_map(|path| std::fs::canonicalize(path).ok())
            .collect();
        let mut guard = self
            .client_roots
            .write()
            .unwrap_or_else(|poison| poison.into_inner());
        *guard = (!roots.is_empty()).then_some(roots);
    }

    /// The directories a path may lie in now.
    pub fn allowed(&self) -> Vec<PathBuf> {
        let client = self
            .client_roots
            .read()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone();
        let mut allowed = match client {
            Some(roots) => roots,
            None => self.working_dir.iter().cloned().collect(),
        };
        allowed.extend(self.extra.iter().cloned());
        allowed
    }

    /// Where `path` really is, if it lies inside the allowed directories.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let given = Path::new(path);
        let absolute = match (given.is_absolute(), &self.working_dir) {
            (true, _) => given.to_path_buf(),
            (false, Some(working_dir)) => working_dir.join(given),
            (false, None) => given.to_path_buf(),
        };
        let allowed = self.allowed();
        let inside = |candidate: &Path| allowed.iter().any(|root| candidate.starts_with(root));
        let outside = |resolved: Option<&Path>| ToolError::PathOutsideRoots {
            path: path.to_string(),
            resolved: resolved.map(|p| p.display().to_string()),
            allowed: allowed
                .iter()
                .map(|root| format!("`{}`", root.display()))
                .collect::<Vec<_>>()
                .join(", "),
        };
        match std::fs::canonicalize(&absolute) {
            Ok(resolved) if inside(&resolved) => Ok(resolved),
            Ok(resolved) => Err(outside(
                (resolved != lexically_normal(&absolute)).then_some(&resolved),
            )),
            // Whether a file exists outside the roots is not told either.
            Err(_) if !inside(&lexically_normal(&absolute)) => Err(outside(None)),
            Err(error) => Err(ToolError::Source(format!("cannot read `{path}`: {error}"))),
        }
    }
}

/// `a/./b/../c` as `a/c`, without touching the file system.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// The local path of a `file://` URI, percent-decoded.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///x` (empty host) or `file://localhost/x`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' && index + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[index + 1..index + 3]).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(decoded)))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(decoded).ok().map(PathBuf::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/me/my%20project"),
            Some(PathBuf::from("/home/me/my project"))
        );
        assert_eq!(
            file_uri_path("file://localhost/srv"),
            Some(PathBuf::from("/srv"))
        );
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(file_uri_path("file://host/x"), None);
        assert_eq!(file_uri_path("file:///bad%zz"), None);
        assert_eq!(
            file_uri_path("file:///cut%2"),
            Some(PathBuf::from("/cut%2"))
        );
    }

    #[test]
    fn paths_outside_the_roots_and_links_out_are_refused() {
        let base = std::env::temp_dir().join(format!("ndb-roots-{}", std::process::id()));
        let root = base.join("project");
        let elsewhere = base.join("elsewhere");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(root.join("ok.py"), "x = 1\n").unwrap();
        std::fs::write(elsewhere.join("secret.py"), "key = 2\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(elsewhere.join("secret.py"), root.join("link.py")).unwrap();

        let scope = PathScope::new(&[]);
        let uri = format!("file://{}", root.display());
        scope.set_client_roots([uri.as_str()]);
        let inside = root.join("ok.py");
        assert!(scope.resolve(&inside.display().to_string()).is_ok());
        let dotted = format!("{}/../elsewhere/secret.py", root.display());
        let refused = scope.resolve(&dotted).unwrap_err();
        assert_eq!(refused.kind(), "path_outside_roots");
        assert!(
            refused.message().contains(&root.display().to_string()),
            "{}",
            refused.message()
        );
        #[cfg(unix)]
        {
            let link = scope
                .resolve(&root.join("link.py").display().to_string())
                .unwrap_err();
            assert!(
                link.message().contains("symbolic link"),
                "{}",
                link.message()
            );
        }
        // A file that does not exist outside the roots is refused the same way.
        let missing = scope.resolve("/nonexistent/ndb/file.py").unwrap_err();
        assert_eq!(missing.kind(), "path_outside_roots");

        // An explicit directory widens the scope.
        let wide = PathScope::new(std::slice::from_ref(&elsewhere));
        wide.set_client_roots([uri.as_str()]);
        assert!(wide.resolve(&dotted).is_ok());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
