; gpuplan's Windows installer (NSIS 3, MUI2), built on Linux by
; scripts/bundle-windows.sh with Debian's makensis:
;
;   makensis -DVERSION=0.1.0 -DSRCDIR=<folder with the three files> \
;            -DOUTFILE=<...>\gpuplan_0.1.0_x64-setup.exe packaging/windows/installer.nsi
;
; Per user, no administrator rights: everything goes under the user's own
; folders and HKCU. What it puts where (scripts/test-windows.sh checks each
; line under Wine, then that the uninstaller removes them):
;
;   $LOCALAPPDATA\Programs\gpuplan\gpuplan-app.exe    the desktop app
;   $LOCALAPPDATA\Programs\gpuplan\gpuplan.exe        the command line
;   $LOCALAPPDATA\Programs\gpuplan\WebView2Loader.dll the app loads it
;   $LOCALAPPDATA\Programs\gpuplan\uninstall.exe
;   $SMPROGRAMS\gpuplan.lnk                           Start menu (this user)
;   HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\gpuplan
;   HKCU\Software\gpuplan                             InstallDir, WebView2 found
;   HKCU\Environment Path                             + the install folder
;
; The user's data (%APPDATA%\app.gpuplan.desktop\gpuplan.db, shared by the app
; and the CLI) is never touched: uninstalling keeps the student's plans.
;
; The app's window is Microsoft Edge WebView2. Windows 11 and updated
; Windows 10 have it; when it is missing the installer says so, in the
; chosen language, and offers Microsoft's bootstrapper page. The CLI works
; without it, so the installation goes on either way.

Unicode true
Target amd64-unicode
SetCompressor /SOLID lzma
ManifestDPIAware true
RequestExecutionLevel user

!ifndef VERSION
  !error "pass -DVERSION=x.y.z"
!endif
!ifndef SRCDIR
  !error "pass -DSRCDIR=<folder holding gpuplan-app.exe, gpuplan.exe, WebView2Loader.dll>"
!endif
!ifndef OUTFILE
  !define OUTFILE "gpuplan_${VERSION}_x64-setup.exe"
!endif
!ifndef ICON
  !define ICON "${__FILEDIR__}/../../src-tauri/icons/icon.ico"
!endif

!define PRODUCT "gpuplan"
!define PUBLISHER "gpuplan"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\gpuplan"
!define OWNKEY "Software\gpuplan"
; Microsoft's product code of the Evergreen WebView2 runtime.
!define WEBVIEW2_GUID "{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"
!define WEBVIEW2_URL "https://go.microsoft.com/fwlink/p/?LinkId=2124703"

Name "${PRODUCT}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${PRODUCT}"
InstallDirRegKey HKCU "${OWNKEY}" "InstallDir"
BrandingText "${PRODUCT} ${VERSION}"

VIProductVersion "${VERSION}.0"
VIAddVersionKey /LANG=0 "ProductName" "${PRODUCT}"
VIAddVersionKey /LANG=0 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileDescription" "${PRODUCT} ${VERSION} setup"
VIAddVersionKey /LANG=0 "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=0 "LegalCopyright" "MIT License"

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "WordFunc.nsh"
!include "WinMessages.nsh"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
; The language picked in the first dialog is remembered for the uninstaller.
!define MUI_LANGDLL_REGISTRY_ROOT "HKCU"
!define MUI_LANGDLL_REGISTRY_KEY "${OWNKEY}"
!define MUI_LANGDLL_REGISTRY_VALUENAME "InstallerLanguage"
!define MUI_LANGDLL_ALLLANGUAGES

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_RUN "$INSTDIR\gpuplan-app.exe"
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

; Simplified Chinese first: most of gpuplan's students read it.
!insertmacro MUI_LANGUAGE "SimpChinese"
!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_RESERVEFILE_LANGDLL

LangString WebView2Missing ${LANG_ENGLISH} "gpuplan's window needs the Microsoft Edge WebView2 Runtime, which this computer does not have.$\r$\n$\r$\nThe command line (gpuplan.exe) works without it.$\r$\n$\r$\nOpen Microsoft's download page now?$\r$\n${WEBVIEW2_URL}"
LangString WebView2Missing ${LANG_SIMPCHINESE} "gpuplan 的窗口需要 Microsoft Edge WebView2 运行时，这台电脑上没有。$\r$\n$\r$\n命令行程序（gpuplan.exe）不需要它，可以照常使用。$\r$\n$\r$\n现在打开微软的下载页面吗？$\r$\n${WEBVIEW2_URL}"
LangString WebView2Found ${LANG_ENGLISH} "Microsoft Edge WebView2 Runtime found: "
LangString WebView2Found ${LANG_SIMPCHINESE} "已找到 Microsoft Edge WebView2 运行时："
LangString PathAdded ${LANG_ENGLISH} "Added to your PATH (open a new terminal to use gpuplan): "
LangString PathAdded ${LANG_SIMPCHINESE} "已加入你的 PATH（新开一个终端即可使用 gpuplan）："
LangString PathTooLong ${LANG_ENGLISH} "Your PATH is too long to change safely; gpuplan.exe is in: "
LangString PathTooLong ${LANG_SIMPCHINESE} "你的 PATH 太长，无法安全修改；gpuplan.exe 位于："
LangString KeptData ${LANG_ENGLISH} "Your plans and ledger are kept in %APPDATA%\app.gpuplan.desktop."
LangString KeptData ${LANG_SIMPCHINESE} "你的计划和账本保留在 %APPDATA%\app.gpuplan.desktop。"

Function .onInit
  !insertmacro MUI_LANGDLL_DISPLAY
FunctionEnd

Function un.onInit
  !insertmacro MUI_UNGETLANGUAGE
FunctionEnd

; The runtime's version, or "" when it is missing: Microsoft's documented
; registry values (per machine, 32-bit view, and per user); "0.0.0.0" means
; a removed runtime.
Function WebView2Version
  Push $0
  ReadRegStr $0 HKLM "SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${If} $0 == ""
  ${OrIf} $0 == "0.0.0.0"
    ReadRegStr $0 HKCU "Software\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${EndIf}
  ${If} $0 == "0.0.0.0"
    StrCpy $0 ""
  ${EndIf}
  Exch $0
FunctionEnd

Section "gpuplan" SecMain
  SectionIn RO
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  File "${SRCDIR}\gpuplan-app.exe"
  File "${SRCDIR}\gpuplan.exe"
  File "${SRCDIR}\WebView2Loader.dll"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortCut "$SMPROGRAMS\${PRODUCT}.lnk" "$INSTDIR\gpuplan-app.exe" "" "$INSTDIR\gpuplan-app.exe" 0

  WriteRegStr HKCU "${OWNKEY}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "${PRODUCT}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\gpuplan-app.exe"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1

  ; The CLI on the user's PATH. NSIS strings hold 1024 characters: a longer
  ; PATH is left alone rather than cut short.
  ReadRegStr $0 HKCU "Environment" "Path"
  StrLen $1 $0
  ${If} $1 > 900
    DetailPrint "$(PathTooLong)$INSTDIR"
  ${Else}
    ClearErrors
    ${WordFind} ";$0;" ";$INSTDIR;" "E+1{" $2
    ${If} ${Errors}
      ${If} $0 == ""
        StrCpy $0 "$INSTDIR"
      ${Else}
        StrCpy $0 "$0;$INSTDIR"
      ${EndIf}
      WriteRegExpandStr HKCU "Environment" "Path" "$0"
      SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=500
    ${EndIf}
    DetailPrint "$(PathAdded)$INSTDIR"
  ${EndIf}

  ; The web view: the window cannot open without it.
  Call WebView2Version
  Pop $0
  WriteRegStr HKCU "${OWNKEY}" "WebView2AtInstall" "$0"
  ${If} $0 == ""
    DetailPrint "$(WebView2Missing)"
    MessageBox MB_YESNO|MB_ICONEXCLAMATION "$(WebView2Missing)" /SD IDNO IDNO +2
      ExecShell "open" "${WEBVIEW2_URL}"
  ${Else}
    DetailPrint "$(WebView2Found)$0"
  ${EndIf}
SectionEnd

Section "Uninstall"
  SetShellVarContext current
  Delete "$INSTDIR\gpuplan-app.exe"
  Delete "$INSTDIR\gpuplan.exe"
  Delete "$INSTDIR\WebView2Loader.dll"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${PRODUCT}.lnk"

  ReadRegStr $0 HKCU "Environment" "Path"
  StrLen $1 $0
  ${If} $1 <= 900
    ${un.WordReplace} ";$0;" ";$INSTDIR;" ";" "+" $0
    ; Drop the two separators added above (and an empty result's one).
    StrCpy $0 $0 "" 1
    StrCpy $0 $0 -1
    ${If} $0 == ""
      DeleteRegValue HKCU "Environment" "Path"
    ${Else}
      WriteRegExpandStr HKCU "Environment" "Path" "$0"
    ${EndIf}
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=500
  ${EndIf}

  DeleteRegKey HKCU "${UNINSTKEY}"
  DeleteRegKey HKCU "${OWNKEY}"
  DetailPrint "$(KeptData)"
SectionEnd
