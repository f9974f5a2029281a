//! The gpuplan desktop app: a thin Tauri shell over `gpuplan-usecases`. Each
//! command deserialises its arguments, calls one use case and returns its
//! answer or its [`gpuplan_usecases::AppError`]. Heavy commands are `async` so
//! Tauri runs them off the main thread.

pub mod commands;
pub mod dto;
pub mod export;
pub mod state;
#[cfg(windows)]
pub mod webview2;

/// Starts the app.
pub fn run() {
    // The page's JavaScript is small (forms and tables): WebKit's interpreter
    // runs it well inside the 50 ms a slider move may take, and without the
    // JIT's code and heap the web process keeps ~18 MB less (issue 23's
    // weight budget: the app with WebKit under 450 MB after the whole flow).
    // Set here, before any thread starts, so the web process inherits it; a
    // value already set (to measure with the JIT, say) is kept.
    #[cfg(target_os = "linux")]
    if std::env::var_os("JSC_useJIT").is_none() {
        std::env::set_var("JSC_useJIT", "0");
    }
    #[cfg(windows)]
    if !webview2::runtime_present() {
        std::process::exit(1);
    }
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .setup(|app| {
            use tauri::Manager;
            let home = gpuplan_usecases::Home::Folder(gpuplan_usecases::home::data_home());
            let state = state::AppState::load(home)?;
            app.manage(state);
            if let Some(w) = app.get_webview_window("main") {
                if let Some(config) = app.config().app.windows.first() {
                    fit_to_screen(&w, config);
                }
            }
            // One local page, no browsing: WebKit's document-viewer cache model
            // keeps the least in memory (issue 4's weight budget).
            #[cfg(target_os = "linux")]
            if let Some(w) = app.get_webview_window("main") {
                let _ = w.with_webview(|wv| {
                    use webkit2gtk::{SettingsExt, WebContextExt, WebViewExt};
                    let view = wv.inner();
                    if let Some(ctx) = view.context() {
                        ctx.set_cache_model(webkit2gtk::CacheModel::DocumentViewer);
                    }
                    if let Some(settings) = view.settings() {
                        // Forms and SVG images need no GPU compositing, WebGL or page
                        // cache; without compositing the web process needs ~75 MB less.
                        settings.set_hardware_acceleration_policy(
                            webkit2gtk::HardwareAccelerationPolicy::Never,
                        );
                        settings.set_enable_webgl(false);
                        settings.set_enable_page_cache(false);
                    }
                });
            }
            Ok(())
        })
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::CloseRequested { .. } = event {
                if close::insisted(std::time::Instant::now()) {
                    let _ = window.destroy();
                }
            }
        })
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::estimate,
            commands::recommend,
            commands::offer_option,
            commands::quote,
            commands::save_plan,
            commands::list_plans,
            commands::delete_plan,
            commands::restore_plan,
            commands::delete_ledger,
            commands::restore_ledger,
            commands::import_report,
            commands::import_report_text,
            commands::run_versus,
            commands::calibration,
            commands::set_calibration,
            commands::export_measured_runs,
            commands::add_ledger,
            commands::list_ledger,
            commands::get_setting,
            commands::set_setting,
            commands::export_file,
            commands::import_pack,
            commands::kit,
            commands::export_png,
            commands::set_override,
            commands::list_overrides,
            commands::list_packs,
            commands::remove_pack,
        ])
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("gpuplan: the app could not start: {e}");
        std::process::exit(1);
    }
}

/// The page asks before the window closes (a plan not saved), so a close
/// waits for it. A page that cannot answer (hung, crashed) must not keep
/// the window open for good: a third close within ten seconds closes it.
mod close {
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    static RECENT: Mutex<Vec<Instant>> = Mutex::new(Vec::new());

    /// Records a close request at `now`; true when it is the third within
    /// ten seconds.
    pub fn insisted(now: Instant) -> bool {
        let Ok(mut recent) = RECENT.lock() else {
            return true;
        };
        recent.retain(|t| now.saturating_duration_since(*t) < Duration::from_secs(10));
        recent.push(now);
        recent.len() >= 3
    }

    #[cfg(test)]
    mod tests {
        use super::insisted;
        use std::time::{Duration, Instant};

        #[test]
        fn a_third_close_within_ten_seconds_closes_a_page_that_does_not_answer() {
            let t = Instant::now();
            // (seconds after the first, closes, why)
            let cases = [
                (0, false, "the first close asks the page"),
                (2, false, "a second, while the question is up, still waits"),
                (
                    4,
                    true,
                    "a third within ten seconds: the page is not answering",
                ),
                (30, false, "much later the count starts again"),
            ];
            for (after, closes, why) in cases {
                assert_eq!(insisted(t + Duration::from_secs(after)), closes, "{why}");
            }
        }
    }
}

/// A window no larger than its screen: the configured 1200 x 800 on a
/// 1024 x 600 netbook put the language switch and the Next button off the
/// screen, past where the student could reach them. The minimum shrinks
/// with it; the page scrolls inside. `config`: the window's configured
/// size and minimum, logical pixels (the window has no size of its own yet
/// when the app sets up). The room is the screen's work area, less the
/// task bar or dock (a 768-pixel laptop screen with a 48-pixel task bar
/// has 720 for the window), and the window is placed at its corner and
/// maximised.
fn fit_to_screen(w: &tauri::WebviewWindow, config: &tauri::utils::config::WindowConfig) {
    let Ok(Some(screen)) = w.current_monitor() else {
        return;
    };
    let scale = screen.scale_factor();
    let area = screen.work_area();
    // A system that reports no work area has the whole screen.
    let (room, corner) = if area.size.width == 0 || area.size.height == 0 {
        (*screen.size(), tauri::PhysicalPosition::new(0, 0))
    } else {
        (area.size, area.position)
    };
    let size = tauri::LogicalSize::new(config.width, config.height).to_physical::<u32>(scale);
    // A tenth of the room is kept for the frame (title bar, borders) and
    // where the system places the window: 1200 x 800 at 125% is 1000 pixels
    // tall, inside a 1020-pixel work area but not with its title bar.
    let frame = |n: u32| n.saturating_sub(n / 10);
    if size.width <= frame(room.width) && size.height <= frame(room.height) {
        return;
    }
    let fitted = tauri::PhysicalSize::new(size.width.min(room.width), size.height.min(room.height));
    let least = tauri::LogicalSize::new(
        config.min_width.unwrap_or(0.0),
        config.min_height.unwrap_or(0.0),
    )
    .to_physical::<u32>(scale);
    // The minimum leaves the frame its room too: a minimum as tall as the
    // work area would keep the maximised frame from fitting.
    let least = tauri::PhysicalSize::new(
        least.width.min(frame(fitted.width)),
        least.height.min(frame(fitted.height)),
    );
    let _ = w.set_min_size(Some(tauri::Size::Physical(least)));
    let _ = w.set_size(tauri::Size::Physical(fitted));
    let _ = w.set_position(tauri::Position::Physical(corner));
    // The title bar and borders are the window manager's and unknown until
    // the window is shown: a window sized to the work area would still
    // reach under the task bar by its title bar. Maximised, the window
    // manager fits the whole frame into the work area (without one, as
    // under Xvfb, the size above stands).
    let _ = w.maximize();
}
