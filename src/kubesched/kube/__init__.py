"""The only package that speaks HTTP to the API server."""
