{
  # Two targets because gyp sets optimization per target, not per file (native/sources.mjs says
  # which files are which): the core's fast files at -O3 in a static library, and the addon
  # itself, the binding and the compact core files, at -Os. The binding must be in the addon:
  # its files register their exports from static initializers, which a static library drops.
  "target_defaults": {
    "include_dirs": [
      "<!(node -p \"require('node-addon-api').include_dir\")",
      "native"
    ],
    "defines": [
      "NAPI_VERSION=8",
      "NAPI_CPP_EXCEPTIONS",
      "NODE_ADDON_API_CPP_EXCEPTIONS_ALL",
      "NODE_ADDON_API_DISABLE_DEPRECATED"
    ],
    "cflags!": ["-fno-exceptions", "-fno-rtti"],
    "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17"],
    # Hidden symbols (only the module's entry point is exported) and one section per function,
    # so the linker drops what nothing calls.
    "cflags": ["-fPIC", "-fvisibility=hidden", "-ffunction-sections", "-fdata-sections"],
    "cflags_cc": ["-std=c++17", "-fvisibility-inlines-hidden", "-ffp-contract=off", "-fno-math-errno", "-fexceptions", "-frtti", "-Wall", "-Wextra", "-Wno-unused-parameter"],
    "xcode_settings": {
      "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
      "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
      "CLANG_CXX_LANGUAGE_STANDARD": "c++17"
    },
    "msvs_settings": {
      "VCCLCompilerTool": { "ExceptionHandling": 1, "AdditionalOptions": ["/std:c++17"] }
    }
  },
  "targets": [
    {
      "target_name": "structrank_fast",
      "type": "static_library",
      "sources": ["<!@(node native/sources.mjs fast)"],
      "cflags_cc": ["-O3"],
      "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": ["-O3"] }
    },
    {
      "target_name": "structrank",
      "dependencies": ["structrank_fast"],
      "sources": [
        "<!@(node native/sources.mjs compact)",
        "<!@(node native/sources.mjs binding)"
      ],
      "cflags_cc": ["-Os"],
      "ldflags": ["-pthread", "-Wl,--gc-sections"],
      "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": ["-Os"], "DEAD_CODE_STRIPPING": "YES" },
      "msvs_settings": { "VCCLCompilerTool": { "AdditionalOptions": ["/O1"] } }
    }
  ]
}
