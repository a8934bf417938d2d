"""README.md's first session, call by call, through the client openapi-python-client generates
from docs/openapi.json (.ci/clients checks it with `mypy --strict`, then runs it). Every reply,
errors included, must parse into the generated model of its documented status, with no field
the document does not declare; anything else exits non-zero."""

import os
import sys
from typing import Any, NoReturn, TypeVar

import attrs
from parley_client import AuthenticatedClient
from parley_client.api.activities import attach_tags, get_activity, list_activities, update_activity
from parley_client.api.carts import create_cart, get_cart
from parley_client.api.catalog import list_categories, list_products, search_products
from parley_client.api.contacts import create_contact
from parley_client.api.messages import list_messages, send_reply
from parley_client.api.tags import create_tag, list_tags
from parley_client.api.templates import list_executions, list_templates, send_template
from parley_client.models import (
    ActivityDetail,
    Activity,
    ActivityStatus,
    AttachTags,
    BodyShape,
    ButtonReplyShape,
    ButtonsAction,
    ButtonSubType,
    CampaignBody,
    CartCreated,
    Cart,
    CartItemBody,
    Categories,
    ChannelType,
    Contact,
    CreateCart,
    CreateContact,
    CreateContactCustomAttributesType0,
    CreateTag,
    ActivityDetailResponse,
    CartCreatedResponse,
    CartResponse,
    CategoriesResponse,
    ContactResponse,
    MessageResponse,
    SendResultResponse,
    TagResponse,
    ExecutionListResponse,
    SearchResultListResponse,
    TagListResponse,
    TemplateListResponse,
    ErrorBody,
    ErrorObject,
    Execution,
    InteractiveButton,
    InteractiveButtonType,
    MessageDirection,
    Message,
    MessageType,
    ActivityPage,
    MessagePage,
    ProductPage,
    Product,
    ReplyButtonShape,
    ReplyText,
    SearchResult,
    SendComponentBody,
    SendParameterBody,
    SendReplyInteractive,
    SendReplyInteractiveType,
    SendReplyText,
    SendReplyTextType,
    SendResult,
    SendTemplate,
    Tag,
    Template,
    UpdateActivity,
    Variant,
)
from parley_client.types import UNSET, Response, Unset

M = TypeVar("M")


def fail(message: str) -> NoReturn:
    sys.exit(f"python client session: {message}")


def undeclared(value: object, path: str) -> None:
    """Fails on what the models took without a word: a field the document does not declare (kept in
    `additional_properties`) or a nested object no union member parsed (left a plain dict)."""
    if isinstance(value, dict):
        fail(f"{path}: an object no generated model parsed: {value!r}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            undeclared(item, f"{path}[{i}]")
    elif attrs.has(cls := type(value)):
        declared = [f.name for f in attrs.fields(cls) if f.name != "additional_properties"]
        extra: dict[str, Any] = getattr(value, "additional_properties", {})
        if declared and extra:  # a model without declared fields is a free-form object
            fail(f"{path} ({type(value).__name__}): undeclared fields {sorted(extra)}")
        for name in declared:
            undeclared(getattr(value, name), f"{path}.{name}")


def expect(response: Response[Any], status: int, model: type[M], what: str) -> M:
    parsed = response.parsed
    if response.status_code != status or not isinstance(parsed, model):
        fail(
            f"{what}: expected {status} {model.__name__}, got {int(response.status_code)} "
            f"{type(parsed).__name__}: {response.content[:500]!r}"
        )
    undeclared(parsed, what)
    print(f"ok  {what}: {status} {model.__name__}")
    return parsed


def all_of(items: list[Any], model: type[Any], what: str) -> None:
    for item in items:
        if not isinstance(item, model):
            fail(f"{what}: {type(item).__name__} is not {model.__name__}")


def error(response: Response[Any], status: int, code: str, what: str) -> ErrorObject:
    """An error reply read as the documented ErrorBody, with the request id to quote to support."""
    err = expect(response, status, ErrorBody, what).error
    if not isinstance(err, ErrorObject) or err.code != code:
        fail(f"{what}: expected code {code}, got {err!r}")
    if not isinstance(err.request_id, str) or err.request_id != response.headers.get("x-request-id"):
        fail(f"{what}: request_id {err.request_id!r} is not the X-Request-Id header")
    return err


def text(value: str) -> SendParameterBody:
    return SendParameterBody(type_="text", text=value)


def activities(
    client: AuthenticatedClient,
    what: str,
    *,
    status: ActivityStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> list[Activity]:
    response = list_activities.sync_detailed(client=client, status=status, limit=limit, search=search)
    page = expect(response, 200, ActivityPage, what)
    all_of(page.data, Activity, what)
    return page.data


def main() -> None:
    url = os.environ["PARLEY_URL"]
    # The API key goes in X-API-Key, as is, no "Bearer" prefix; undocumented statuses raise.
    sk = AuthenticatedClient(
        base_url=url,
        token=os.environ["PARLEY_KEY"],
        prefix="",
        auth_header_name="X-API-Key",
        raise_on_unexpected_status=True,
    )
    pk = AuthenticatedClient(
        base_url=url,
        token=os.environ["PARLEY_PUBLISHABLE_KEY"],
        prefix="",
        auth_header_name="X-API-Key",
        raise_on_unexpected_status=True,
    )

    # The demo agent's tags, and its open conversations, five per page
    tags = expect(list_tags.sync_detailed(client=sk), 200, TagListResponse, "GET /v1/tags")
    all_of(tags.data, Tag, "tags")
    open_page = activities(sk, "GET /v1/activities?status=open&limit=5", status=ActivityStatus.OPEN, limit=5)
    if not open_page or any(a.status != ActivityStatus.OPEN for a in open_page):
        fail(f"open activities: {open_page!r}")

    # Find a conversation by a piece of the contact's name, or of a phone number
    if not activities(sk, "GET /v1/activities?search=ana", search="ana"):
        fail("no activity matches 'ana'")
    if not activities(sk, "GET /v1/activities?search=5512", search="5512"):
        fail("no activity matches '5512'")

    # Create a tag and a contact
    tag = expect(
        create_tag.sync_detailed(client=sk, body=CreateTag(name="Priority", color="#7c3aed")),
        201,
        TagResponse,
        "POST /v1/tags",
    ).data
    attributes = CreateContactCustomAttributesType0()
    attributes["plan"] = "pro"
    contact = expect(
        create_contact.sync_detailed(
            client=sk,
            body=CreateContact(
                channel_type=ChannelType.WHATSAPP,
                channel_id="+1 415 555 0100",
                profile_name="Iris Chen",
                custom_attributes=attributes,
            ),
        ),
        201,
        ContactResponse,
        "POST /v1/contacts",
    ).data
    if not isinstance(tag, Tag) or not isinstance(contact, Contact) or contact.custom_attributes["plan"] != "pro":
        fail(f"created tag {tag!r}, contact {contact!r}")

    # Take the first open conversation: tag it, assign it, close it
    act = activities(sk, "GET /v1/activities?status=open&limit=1", status=ActivityStatus.OPEN, limit=1)[0].id
    tagged = expect(
        attach_tags.sync_detailed(act, client=sk, body=AttachTags(tag_ids=[tag.id])),
        200,
        ActivityDetailResponse,
        "POST /v1/activities/{id}/tags",
    ).data
    closed = expect(
        update_activity.sync_detailed(
            act, client=sk, body=UpdateActivity(status=ActivityStatus.CLOSED, assigned_to="user_42")
        ),
        200,
        ActivityDetailResponse,
        "PATCH /v1/activities/{id}",
    ).data
    if tag.id not in [t.id for t in tagged.tags] or closed.status != ActivityStatus.CLOSED:
        fail(f"tagged {tagged!r}, closed {closed!r}")
    if closed.assigned_to != "user_42":
        fail(f"tagged {tagged!r}, closed {closed!r}")

    # The catalog and carts also take the publishable key
    categories = expect(list_categories.sync_detailed(client=pk), 200, CategoriesResponse, "GET /v1/categories")
    outdoor = expect(
        list_products.sync_detailed(client=pk, tag="Outdoor", limit=2),
        200,
        ProductPage,
        "GET /v1/products?tag=Outdoor&limit=2",
    )
    all_of(outdoor.data, Product, "products")
    if (
        not isinstance(categories.data, Categories)
        or len(outdoor.data) != 2
        or any("Outdoor" not in p.category_tags for p in outdoor.data)
    ):
        fail(f"categories {categories!r}, products {outdoor!r}")

    # Search by meaning
    found = expect(
        search_products.sync_detailed(client=pk, q="my feet hurt after long hikes", limit=3),
        200,
        SearchResultListResponse,
        "GET /v1/products/search?limit=3",
    )
    all_of(found.data, SearchResult, "search results")
    if not 1 <= len(found.data) <= 3:
        fail(f"search results {found!r}")
    in_outdoor = expect(
        search_products.sync_detailed(client=pk, q="stay warm on a cold night", tag="Outdoor", limit=3),
        200,
        SearchResultListResponse,
        "GET /v1/products/search?tag=Outdoor&limit=3",
    )
    outdoor_ids = {
        p.field_id
        for p in expect(
            list_products.sync_detailed(client=pk, tag="Outdoor", limit=100), 200, ProductPage, "GET /v1/products?tag=Outdoor"
        ).data
    }
    if not 1 <= len(in_outdoor.data) <= 3 or any(p.field_id not in outdoor_ids for p in in_outdoor.data):
        fail(f"search in Outdoor {in_outdoor!r}, Outdoor products {outdoor_ids!r}")

    # A storefront hands a shopper over with a cart: two of one product's last variant
    listed = expect(list_products.sync_detailed(client=pk, limit=100), 200, ProductPage, "GET /v1/products?limit=100").data
    with_variants = next((p for p in listed if p.variants), None)
    if with_variants is None:
        fail("no product with variants in the demo catalog")
    product, chosen = with_variants.field_id, with_variants.variants[-1]
    created = expect(
        create_cart.sync_detailed(client=pk, body=CreateCart(items=[CartItemBody(id=product, variant_id=chosen.id, qty=2)])),
        201,
        CartCreatedResponse,
        "POST /v1/carts",
    ).data
    cart = expect(get_cart.sync_detailed(created.code, client=pk), 200, CartResponse, "GET /v1/carts/{code}").data
    line = cart.items[0] if isinstance(cart, Cart) and len(cart.items) == 1 else None
    # Doubling is exact in binary too, so the client's own arithmetic may check the server's here.
    if (
        not isinstance(created, CartCreated)
        or line is None
        or (line.field_id, line.qty) != (product, 2)
        or not isinstance(line.variant, Variant)
        or line.variant.id != chosen.id
        or (line.unit_price, line.line_total) != (chosen.price, 2 * chosen.price)
        or (cart.currency, cart.total) != (with_variants.currency, line.line_total)
    ):
        fail(f"cart {cart!r}")

    # WhatsApp: send the sandbox line's order_update template under a campaign key
    templates = expect(list_templates.sync_detailed(client=sk), 200, TemplateListResponse, "GET /v1/templates")
    all_of(templates.data, Template, "templates")
    order_update = [t for t in templates.data if t.name == "order_update"]
    if not order_update:
        fail("templates: no order_update")
    sent = expect(
        send_template.sync_detailed(
            order_update[0].id,
            client=sk,
            body=SendTemplate(
                to="+1 415 555 0100",
                components=[
                    SendComponentBody(type_="header", parameters=[text("A-17")]),
                    SendComponentBody(type_="body", parameters=[text("Iris"), text("A-17"), text("Friday")]),
                    SendComponentBody(type_="button", sub_type=ButtonSubType.URL, index=0, parameters=[text("A-17")]),
                ],
                campaign=CampaignBody(key="readme-demo", name="README demo"),
            ),
        ),
        200,
        SendResultResponse,
        "POST /v1/templates/{id}/send",
    ).data
    if not isinstance(sent, SendResult) or not sent.message_sent:
        fail(f"template send {sent!r}")
    executions = expect(
        list_executions.sync_detailed("readme-demo", client=sk),
        200,
        ExecutionListResponse,
        "GET /v1/campaigns/{key}/executions",
    )
    all_of(executions.data, Execution, "executions")
    if [e.message_id for e in executions.data] != [sent.message_id]:
        fail(f"executions {executions!r}")

    # Ana's timeline, her cart on her conversation, and a reply within the 24-hour window
    ana = activities(sk, "GET /v1/activities?search=5512", search="5512")[0].id
    timeline = expect(
        list_messages.sync_detailed(ana, client=sk, limit=5),
        200,
        MessagePage,
        "GET /v1/activities/{id}/messages?limit=5",
    )
    all_of(timeline.data, Message, "messages")
    detail = expect(
        get_activity.sync_detailed(ana, client=sk), 200, ActivityDetailResponse, "GET /v1/activities/{id}"
    ).data
    if not isinstance(detail, ActivityDetail) or not detail.carts or not timeline.data:
        fail(f"Ana's activity {detail!r}, timeline {timeline!r}")
    reply = expect(
        send_reply.sync_detailed(
            ana,
            client=sk,
            body=SendReplyText(
                type_=SendReplyTextType.TEXT, text=ReplyText(body="Reserved! They are yours until tomorrow.")
            ),
        ),
        201,
        MessageResponse,
        "POST /v1/activities/{id}/messages",
    ).data
    if not isinstance(reply, Message) or reply.direction != MessageDirection.OUTBOUND:
        fail(f"reply {reply!r}")
    choices = InteractiveButton(
        type_=InteractiveButtonType.BUTTON,
        body=BodyShape(text="Shall I place the order?"),
        action=ButtonsAction(
            buttons=[
                ReplyButtonShape(type_="reply", reply=ButtonReplyShape(id="confirm", title="Confirm order")),
                ReplyButtonShape(type_="reply", reply=ButtonReplyShape(id="size", title="Change size")),
            ]
        ),
    )
    buttons = expect(
        send_reply.sync_detailed(
            ana, client=sk, body=SendReplyInteractive(type_=SendReplyInteractiveType.INTERACTIVE, interactive=choices)
        ),
        201,
        MessageResponse,
        "POST /v1/activities/{id}/messages (buttons)",
    ).data
    if not isinstance(buttons, Message) or buttons.type_ != MessageType.INTERACTIVE or buttons.text != "Shall I place the order?":
        fail(f"buttons {buttons!r}")

    # Bruno never wrote: outside the window only an approved template may go out
    bruno = activities(sk, "GET /v1/activities?search=bruno", search="bruno")[0].id
    error(
        send_reply.sync_detailed(
            bruno, client=sk, body=SendReplyText(type_=SendReplyTextType.TEXT, text=ReplyText(body="Hello?"))
        ),
        422,
        "WINDOW_CLOSED",
        "POST /v1/activities/{id}/messages (Bruno)",
    )

    # Errors have one shape, with a request id to quote to support
    invalid = error(
        list_activities.sync_detailed(client=sk, limit=500), 400, "VALIDATION_ERROR", "GET /v1/activities?limit=500"
    )
    if isinstance(invalid.details, list) and "limit" in [d.field for d in invalid.details]:
        print("python client session: every call of the README session passed")
    else:
        fail(f"limit=500: details {invalid.details!r} do not name `limit`")


if __name__ == "__main__":
    main()
