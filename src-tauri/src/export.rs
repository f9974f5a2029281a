//! Files the app reads and writes for the user. The web view never names a
//! path: the native dialogs are opened here, in the same command that then
//! reads or writes the file the user chose, so a script in the web view
//! cannot write (or read) anywhere else. Charts are rendered to PNG without
//! resolving any external resource.

use std::path::{Path, PathBuf};

use gpuplan_usecases::{files, AppError};
use tauri::{AppHandle, Runtime};
use tauri_plugin_dialog::DialogExt;

use crate::dto::ExportKind;

/// Largest export the web view may hand over, bytes (a bill or chart is a
/// few hundred kilobytes at most).
pub const MAX_EXPORT_BYTES: usize = 16 * 1024 * 1024;

/// A suggested file name reduced to a plain name: no folders, no control
/// characters, at most 100 characters.
fn plain_name(name: &str, kind: ExportKind) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = base.chars().filter(|c| !c.is_control()).take(100).collect();
    if clean.trim().is_empty() || clean.starts_with('.') {
        format!("gpuplan.{}", kind.extensions()[0])
    } else {
        clean
    }
}

/// Asks the user where to save with the native dialog and writes `bytes`
/// there; `None` when the dialog was cancelled. The path exists only inside
/// this call.
pub fn save_with_dialog<R: Runtime>(
    app: &AppHandle<R>,
    kind: ExportKind,
    file_name: &str,
    bytes: &[u8],
) -> Result<Option<String>, AppError> {
    if bytes.len() > MAX_EXPORT_BYTES {
        return Err(AppError::input(
            "content",
            format!("the export is {} bytes", bytes.len()),
            format!("at most {MAX_EXPORT_BYTES} bytes"),
        )
        .said(
            gpuplan_core::Message::new("error.exportTooLarge"),
            Some(gpuplan_core::Message::new("allowed.fileBytes").with("max", MAX_EXPORT_BYTES)),
        ));
    }
    let chosen = app
        .dialog()
        .file()
        .set_file_name(plain_name(file_name, kind))
        .add_filter(kind.label(), kind.extensions())
        .blocking_save_file();
    let Some(chosen) = chosen else {
        return Ok(None);
    };
    let path = chosen
        .into_path()
        .map_err(|e| AppError::io(format!("the chosen file: {e}")))?;
    write(&path, kind.extensions(), bytes)?;
    Ok(Some(path.display().to_string()))
}

/// Asks the user for a course pack with the native dialog; `None` when
/// cancelled.
pub fn pick_pack<R: Runtime>(app: &AppHandle<R>) -> Result<Option<PathBuf>, AppError> {
    pick(app, "Course pack", &["toml"])
}

/// Asks the user for a run report (the JSON the kit's wrapper writes).
pub fn pick_report<R: Runtime>(app: &AppHandle<R>) -> Result<Option<PathBuf>, AppError> {
    pick(app, "Run report", &["json"])
}

fn pick<R: Runtime>(
    app: &AppHandle<R>,
    what: &str,
    extensions: &[&str],
) -> Result<Option<PathBuf>, AppError> {
    app.dialog()
        .file()
        .add_filter(what, extensions)
        .blocking_pick_file()
        .map(|p| {
            p.into_path()
                .map_err(|e| AppError::io(format!("the chosen file: {e}")))
        })
        .transpose()
}

/// Writes `bytes` to `path` when its extension is one of `allowed`.
pub fn write(path: &Path, allowed: &[&str], bytes: &[u8]) -> Result<(), AppError> {
    let p = path.to_path_buf();
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !allowed.contains(&ext.as_str()) {
        let want = allowed.join(" or .");
        return Err(AppError::input(
            "path",
            format!("`{}` does not end in .{want}", path.display()),
            format!("a .{want} file"),
        )
        .said(
            gpuplan_core::Message::new("error.wrongExtension").with("path", path.display()),
            Some(
                gpuplan_core::Message::new("allowed.extension")
                    .with("ext", format!(".{}", allowed.join(" / ."))),
            ),
        ));
    }
    files::write_atomic(&p, bytes)
}

/// Renders a chart's SVG to PNG at twice its size, with the system's fonts
/// (Noto CJK renders the Chinese labels). The SVG's own external references
/// (`<image href>`) are never resolved.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, AppError> {
    use resvg::{tiny_skia, usvg};
    if svg.len() > MAX_EXPORT_BYTES {
        return Err(AppError::input(
            "svg",
            format!("the chart is {} bytes", svg.len()),
            format!("at most {MAX_EXPORT_BYTES} bytes"),
        )
        .said(
            gpuplan_core::Message::new("error.exportTooLarge"),
            Some(gpuplan_core::Message::new("allowed.fileBytes").with("max", MAX_EXPORT_BYTES)),
        ));
    }
    let mut opt = usvg::Options {
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: Box::new(|_, _, _| None),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    };
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    // Plotters asks for `sans-serif`; fontdb maps that to Arial, which Linux
    // rarely has and which has no Chinese anywhere. Prefer a CJK-capable
    // face so Chinese labels render: Linux's, then the ones Windows (since
    // Vista / 10) and macOS ship.
    let family = [
        "Noto Sans CJK SC",
        "Noto Sans SC",
        "Source Han Sans SC",
        "WenQuanYi Micro Hei",
        "Microsoft YaHei",
        "DengXian",
        "SimHei",
        "PingFang SC",
        "Hiragino Sans GB",
        "DejaVu Sans",
    ]
    .into_iter()
    .find(|f| {
        db.faces()
            .any(|face| face.families.iter().any(|(name, _)| name == f))
    });
    if let Some(f) = family {
        db.set_sans_serif_family(f);
    }
    let tree =
        usvg::Tree::from_str(svg, &opt).map_err(|e| AppError::io(format!("chart SVG: {e}")))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(
        size.width().saturating_mul(2),
        size.height().saturating_mul(2),
    )
    .ok_or_else(|| AppError::io("chart is empty"))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(2.0, 2.0),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| AppError::io(format!("PNG: {e}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn suggested_names_are_plain_names() {
        use super::{plain_name, ExportKind};
        // (suggested by the web view, kind, what the dialog offers, why)
        let cases = [
            (
                "gpuplan-plan.csv",
                ExportKind::Csv,
                "gpuplan-plan.csv",
                "a plain name is kept",
            ),
            (
                "../../.bashrc",
                ExportKind::Script,
                "gpuplan.sh",
                "folders and dot files are not suggested",
            ),
            (
                "/etc/cron.d/x.sh",
                ExportKind::Script,
                "x.sh",
                "only the last part of a path",
            ),
            (
                "C:\\Users\\a\\evil.png",
                ExportKind::Png,
                "evil.png",
                "Windows folders too",
            ),
            (
                "bill\u{1b}[2J.html",
                ExportKind::Html,
                "bill[2J.html",
                "control characters are dropped",
            ),
            (
                "",
                ExportKind::Svg,
                "gpuplan.svg",
                "an empty name gets a default",
            ),
        ];
        for (given, kind, want, why) in cases {
            assert_eq!(plain_name(given, kind), want, "{why}");
        }
    }

    #[test]
    fn writes_only_files_with_the_kind_s_extension() {
        let dir = tempfile::tempdir().expect("tmp");
        let bad = dir.path().join("plan.sh");
        assert!(
            super::write(&bad, &["csv"], b"x").is_err(),
            "a .sh is not a CSV export"
        );
        assert!(!bad.exists(), "and nothing was written");
        let good = dir.path().join("plan.csv");
        super::write(&good, &["csv"], b"a,b").expect("a CSV");
        assert_eq!(
            std::fs::read(&good).expect("read"),
            b"a,b",
            "the bytes arrive"
        );
    }

    #[test]
    fn charts_render_to_png_with_chinese_labels() {
        let svg = gpuplan_charts::cumulative_spend(
            "累计花费（元）",
            &[(1, 10.0), (2, 25.0)],
            Some(40.0),
            "预算",
            "天",
            "元",
        )
        .expect("svg");
        let png = super::svg_to_png(&svg).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG file");
        let w = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
        assert_eq!(
            w,
            gpuplan_charts::SIZE.0 * 2,
            "rendered at twice the chart's width"
        );
        if let Some(out) = std::env::var_os("GPUPLAN_PNG_OUT") {
            std::fs::write(out, &png).expect("write sample");
        }
    }

    #[test]
    fn png_export_reads_no_file_an_svg_names() {
        // A web view could hand any SVG to the PNG export: one that points an
        // <image> at a local file must not read it into the picture.
        let dir = std::env::temp_dir().join(format!("gpuplan-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let secret = dir.join("secret.png");
        let solid = super::svg_to_png(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="black"/></svg>"#,
        )
        .expect("png");
        std::fs::write(&secret, &solid).expect("secret");
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="4" height="4"><image width="4" height="4" xlink:href="{}"/></svg>"#,
            secret.display()
        );
        let png = super::svg_to_png(&svg).expect("png");
        let blank = super::svg_to_png(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>"#,
        )
        .expect("png");
        assert_eq!(png, blank, "the referenced file is not drawn");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
