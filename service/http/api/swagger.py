"""``/docs/ui/``: Swagger UI over ``/openapi.yaml``, served from the flask-swagger-ui package.

The package ships Swagger UI's built files, so the page needs no internet
(machines that run this may have none). It shows what the plain ``/docs``
page summarises: every enum, default, bound and example, each response, and
a form to try an operation. ``validatorUrl`` is off: Swagger UI would
otherwise send the spec to an outside validator.
"""

from __future__ import annotations

from flask_swagger_ui import get_swaggerui_blueprint  # type: ignore[import-untyped]

bp = get_swaggerui_blueprint(
    "/docs/ui",
    "/openapi.yaml",
    config={
        "app_name": "Risk game server API",
        "validatorUrl": None,
        "docExpansion": "list",
        "defaultModelsExpandDepth": 1,
        "tryItOutEnabled": False,
    },
    blueprint_name="swagger_ui",
)
