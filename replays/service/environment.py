"""The environment variables `woundlog serve` reads, beside its options: here, apart from the web
stack, so that the CLI can declare the options without loading it (`woundlog -h` builds every
command)."""

ADMIN_ENV = "WOUNDLOG_ADMIN_TOKEN"
CORS_ENV = "WOUNDLOG_CORS_ORIGINS"  # comma-separated origins, e.g. http://localhost:30000
