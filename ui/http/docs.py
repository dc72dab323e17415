"""``/docs`` without a CDN: Swagger UI's script and styles (version 5, which reads the
OpenAPI 3.1 schema FastAPI writes) come from the files the ``fastapi-offline`` package
ships, served by us under ``/docs/assets``."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["ASSETS", "install_docs"]

ASSETS = "/docs/assets"


def install_docs(api: FastAPI) -> None:
    """Swagger UI at ``/docs`` over ``api``'s OpenAPI schema, every asset local."""
    static = Path(str(resources.files("fastapi_offline").joinpath("static")))
    api.mount(ASSETS, StaticFiles(directory=static), name="docs-assets")

    @api.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=api.openapi_url or "/openapi.json",
            title=f"{api.title} - API docs",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
            # The default validator badge is an image from validator.swagger.io.
            swagger_ui_parameters={"validatorUrl": None},
        )
