//! Build script: a Windows `gpuplan.exe` gets the app's icon and version
//! information (Explorer's Details tab, antivirus and SmartScreen read
//! them), as tauri-build gives `gpuplan-app.exe`. Nothing on other systems.

fn main() {
    println!("cargo:rerun-if-changed=../../src-tauri/icons/icon.ico");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("windows") {
        return;
    }
    let mut res = tauri_winres::WindowsResource::new();
    res.set_icon("../../src-tauri/icons/icon.ico")
        .set("ProductName", "gpuplan")
        .set("FileDescription", "gpuplan command line")
        .set("OriginalFilename", "gpuplan.exe");
    if let Err(e) = res.compile_for(&["gpuplan"]) {
        println!("cargo:warning=the Windows resource (icon, version) did not compile: {e}");
        std::process::exit(1);
    }
}
