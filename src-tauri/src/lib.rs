//! The gpuplan desktop app: a thin Tauri shell. Each command deserialises its
//! arguments, calls the core, the store or the charts, and maps errors into
//! [`error::AppError`]. Heavy commands are `async` so Tauri runs them off the
//! main thread.

pub mod commands;
pub mod dto;
pub mod error;
pub mod state;

/// Starts the app.
pub fn run() {
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .setup(|app| {
            use tauri::Manager;
            let dir = app
                .path()
                .app_data_dir()
                .unwrap_or_else(|_| std::env::temp_dir().join("gpuplan"));
            let state = state::AppState::load(&dir);
            app.manage(state);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::estimate,
            commands::recommend,
            commands::quote,
            commands::chart,
            commands::save_plan,
            commands::list_plans,
            commands::delete_plan,
            commands::add_ledger,
            commands::list_ledger,
            commands::get_setting,
            commands::set_setting,
            commands::export_file,
            commands::import_pack,
            commands::kit,
        ])
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("gpuplan: the app could not start: {e}");
        std::process::exit(1);
    }
}
