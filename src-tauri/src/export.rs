//! Files the app writes for the user: exports to the path the save dialog
//! returned, and charts rendered to PNG.

use gpuplan_usecases::{files, AppError};

/// Writes `bytes` to `path` when its extension is one of `allowed`.
pub fn write(path: &str, allowed: &[&str], bytes: &[u8]) -> Result<(), AppError> {
    let p = std::path::PathBuf::from(path);
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !allowed.contains(&ext.as_str()) {
        let want = allowed.join(" or .");
        return Err(AppError::input(
            "path",
            format!("`{path}` does not end in .{want}"),
            format!("a .{want} file"),
        ));
    }
    files::write_atomic(&p, bytes)
}

/// Renders a chart's SVG to PNG at twice its size, with the system's fonts
/// (Noto CJK renders the Chinese labels). The SVG's own external references
/// (`<image href>`) are never resolved.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, AppError> {
    use resvg::{tiny_skia, usvg};
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
    // rarely has. Prefer a CJK-capable face so Chinese labels render.
    let family = [
        "Noto Sans CJK SC",
        "Noto Sans SC",
        "Source Han Sans SC",
        "WenQuanYi Micro Hei",
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
    let mut pixmap = tiny_skia::Pixmap::new(size.width() * 2, size.height() * 2)
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
    fn charts_render_to_png_with_chinese_labels() {
        let svg = gpuplan_charts::cumulative_spend(
            "累计花费（元）",
            &[(1, 10.0), (2, 25.0)],
            Some(40.0),
            "预算",
            "天",
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
