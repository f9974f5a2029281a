//! Build script: generates the Tauri context (config, capabilities, embedded UI).
fn main() {
    tauri_build::build()
}
