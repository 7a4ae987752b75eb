"""Issue 11: a client generated from the OpenAPI document (openapi-python-client) signs in
and submits a job against a real server, reading every answer into its generated model;
a refused sign-in reads as the shared error shape. Usage: python client_test.py BASE_URL"""

import sys

from tidepool_client import AuthenticatedClient, Client
from tidepool_client.api.auth import login, logout, refresh
from tidepool_client.api.jobs import cancel_job, dry_run, job_receipt, list_jobs, submit_job
from tidepool_client.api.me import me
from tidepool_client.models import (
    Cancelled,
    DryRun,
    ErrorBody,
    JobPage,
    JobState,
    Login,
    Logout,
    Receipt,
    Refresh,
    Submit,
    Submitted,
    Tokens,
    User,
)


def expect(value, kind):
    assert isinstance(value, kind), f"expected {kind.__name__}, got {value!r}"
    return value


def main() -> None:
    base = sys.argv[1]
    anyone = Client(base_url=base, raise_on_unexpected_status=True)

    wrong = login.sync_detailed(client=anyone, body=Login(username="vision-dev", password="not it"))
    assert wrong.status_code == 401, wrong
    assert expect(wrong.parsed, ErrorBody).error.code == "unauthorized"

    tokens = expect(login.sync(client=anyone, body=Login(username="vision-dev", password="demo-password")), Tokens)
    assert tokens.token_type == "Bearer" and tokens.user.role == "member"
    dev = AuthenticatedClient(base_url=base, token=tokens.access_token, raise_on_unexpected_status=True)
    assert expect(me.sync(client=dev), User).username == "vision-dev"

    spec = Submit(name="x", command="train", gpus=1)
    plan = expect(dry_run.sync(client=dev, body=spec), DryRun)
    assert plan.would in ("start", "wait"), plan
    job = expect(submit_job.sync(client=dev, body=spec), Submitted)
    assert job.state == JobState.PENDING, job

    receipt = expect(job_receipt.sync(client=dev, id=job.id), Receipt)
    assert (receipt.id, receipt.name, receipt.gpus) == (job.id, "x", 1), receipt
    assert any(e.kind == "submitted" for e in receipt.events), receipt.events
    page = expect(list_jobs.sync(client=dev, mine=True, limit=5), JobPage)
    assert any(j.id == job.id for j in page.jobs), page
    done = expect(cancel_job.sync(client=dev, id=job.id), Cancelled)
    assert done.state == JobState.CANCELLED

    fresh = expect(refresh.sync(client=anyone, body=Refresh(refresh_token=tokens.refresh_token)), Tokens)
    assert fresh.refresh_token != tokens.refresh_token
    out = logout.sync_detailed(client=anyone, body=Logout(refresh_token=fresh.refresh_token))
    assert out.status_code == 204, out
    print(f"openapi: the generated client signed in, submitted job {job.id}, read its receipt and cancelled it")


if __name__ == "__main__":
    main()
