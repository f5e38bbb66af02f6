module github.com/authority-runtime/authority-runtime/sdks/go

go 1.19
