//! Windows only: the window is Microsoft Edge WebView2, which Windows 11 and
//! updated Windows 10 have and older or trimmed systems may lack. Without
//! it the app would end before any window, silently (a GUI program has no
//! console), so it is checked first and, when missing, the student is told
//! in both languages and offered Microsoft's bootstrapper page. The CLI
//! needs no web view.

/// Microsoft's Evergreen WebView2 bootstrapper (also in the installer).
pub const BOOTSTRAPPER_URL: &str = "https://go.microsoft.com/fwlink/p/?LinkId=2124703";

/// The message box's title (scripts/test-windows.sh looks for it).
pub const TITLE: &str = "gpuplan: Microsoft Edge WebView2";

/// True when the runtime is there; otherwise tells the user and returns false.
pub fn runtime_present() -> bool {
    let reason = match tauri::webview_version() {
        Ok(_) => return true,
        Err(e) => e.to_string(),
    };
    let catalog = gpuplan_usecases::Catalog::bundled().ok();
    let text = |lang| {
        catalog.as_ref().map_or_else(
            || format!("Microsoft Edge WebView2: {BOOTSTRAPPER_URL}"),
            |c| {
                c.fill(
                    lang,
                    "app.webview2Missing",
                    [("url", BOOTSTRAPPER_URL), ("reason", reason.as_str())],
                )
            },
        )
    };
    let message = format!(
        "{}\n\n{}",
        text(gpuplan_usecases::Lang::Zh),
        text(gpuplan_usecases::Lang::En)
    );
    eprintln!("{TITLE}\n{message}");
    let answer = rfd::MessageDialog::new()
        .set_title(TITLE)
        .set_description(&message)
        .set_level(rfd::MessageLevel::Error)
        .set_buttons(rfd::MessageButtons::YesNo)
        .show();
    if answer == rfd::MessageDialogResult::Yes {
        let _ = std::process::Command::new("explorer")
            .arg(BOOTSTRAPPER_URL)
            .spawn();
    }
    false
}
