"""``/docs`` without a CDN: Swagger UI's script and styles come from the
``swagger-ui-bundle`` package and are served by us under ``/docs/assets``."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["ASSETS", "install_docs"]

ASSETS = "/docs/assets"


def install_docs(api: FastAPI) -> None:
    """Swagger UI at ``/docs`` over ``api``'s OpenAPI schema, every asset local."""
    import swagger_ui_bundle

    api.mount(ASSETS, StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="docs-assets")

    @api.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=api.openapi_url or "/openapi.json",
            title=f"{api.title} - API docs",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
            # The default validator badge is an image from validator.swagger.io.
            swagger_ui_parameters={"validatorUrl": None},
        )
