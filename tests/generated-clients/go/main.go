// The walk of issue 30 through the client oapi-codegen generates from openapi-3.0.json (package
// finance, generated next to this file by tests/generated-clients/go.walk.test.ts, never committed).
// BASE_URL, EMAIL, PASSWORD, HOOK_URL and HOOK_INBOX come from the environment. Prints one
// `ok <step>` line per step and `walk passed`; exits 1 naming the step that failed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"time"

	"finance-walk/finance"

	openapi_types "github.com/oapi-codegen/runtime/types"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func step(name string) { fmt.Printf("ok %s\n", name) }

func fail(name string, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "walk FAILED: %s: %s\n", name, fmt.Sprintf(format, args...))
	os.Exit(1)
}

func check(name string, err error, status int, want int, body []byte) {
	if err != nil {
		fail(name, "%v", err)
	}
	if status != want {
		fail(name, "expected %d, got %d %s", want, status, string(body))
	}
}

func date(s string) openapi_types.Date {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return openapi_types.Date{Time: t}
}

func main() {
	ctx := context.Background()
	base := os.Getenv("BASE_URL")
	anonymous, err := finance.NewClientWithResponses(base)
	if err != nil {
		fail("client", "%v", err)
	}
	login, err := anonymous.LoginWithResponse(ctx, nil, finance.LoginJSONRequestBody{
		Email:    os.Getenv("EMAIL"),
		Password: os.Getenv("PASSWORD"),
	})
	check("login", err, login.StatusCode(), 200, login.Body)
	step("login")
	token := login.JSON200.AccessToken
	api, err := finance.NewClientWithResponses(base, finance.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	if err != nil {
		fail("client", "%v", err)
	}

	usd := "USD"
	ws, err := api.CreateWorkspaceWithResponse(ctx, nil, finance.CreateWorkspaceJSONRequestBody{Name: "Go client", BaseCurrency: &usd})
	check("create workspace", err, ws.StatusCode(), 200, ws.Body)
	workspaceID := ws.JSON200.Id
	project, err := api.CreateProjectWithResponse(ctx, nil, finance.CreateProjectJSONRequestBody{WorkspaceId: workspaceID, Name: "Operations"})
	check("create project", err, project.StatusCode(), 200, project.Body)
	step("create workspace and project")

	key := fmt.Sprintf("go-walk-%d", time.Now().UnixNano())
	description := "Consulting, February"
	body := finance.CreateEntryJSONRequestBody{
		ProjectId:    project.JSON200.Id,
		EntryType:    finance.EntryTypeINCOME,
		AmountCents:  250000,
		BaseCurrency: "USD",
		EntryDate:    date("2026-02-14"),
		Description:  &description,
	}
	first, err := api.CreateEntryWithResponse(ctx, &finance.CreateEntryParams{IdempotencyKey: &key}, body)
	check("create entry", err, first.StatusCode(), 200, first.Body)
	if first.HTTPResponse.Header.Get("Idempotency-Replayed") != "" {
		fail("create entry", "the first request was marked replayed")
	}
	entry := first.JSON200
	step("create entry with Idempotency-Key")
	again, err := api.CreateEntryWithResponse(ctx, &finance.CreateEntryParams{IdempotencyKey: &key}, body)
	check("replay", err, again.StatusCode(), 200, again.Body)
	if again.HTTPResponse.Header.Get("Idempotency-Replayed") != "true" || again.JSON200.Id != entry.Id || !bytes.Equal(again.Body, first.Body) {
		fail("replay", "not a replay of entry %d", entry.Id)
	}
	step("replay")

	for i := 0; i < 4; i++ {
		more, err := api.CreateEntryWithResponse(ctx, nil, finance.CreateEntryJSONRequestBody{
			ProjectId:    project.JSON200.Id,
			EntryType:    finance.EntryTypeEXPENSE,
			AmountCents:  int64(1000 + i),
			BaseCurrency: "USD",
			EntryDate:    date(fmt.Sprintf("2026-03-0%d", i+1)),
		})
		check("create entry", err, more.StatusCode(), 200, more.Body)
	}
	seen := map[int64]bool{}
	pages := 0
	var cursor *string
	limit := int32(2)
	for {
		page, err := api.ListEntriesWithResponse(ctx, &finance.ListEntriesParams{WorkspaceId: workspaceID, Limit: &limit, Cursor: cursor})
		check("page by cursor", err, page.StatusCode(), 200, page.Body)
		pages++
		for _, e := range page.JSON200.Items {
			seen[e.Id] = true
		}
		if page.JSON200.NextCursor == nil {
			break
		}
		cursor = page.JSON200.NextCursor
	}
	if len(seen) != 5 || pages != 3 {
		fail("page by cursor", "%d pages, %d distinct entries", pages, len(seen))
	}
	step("page by cursor")

	var form bytes.Buffer
	writer := multipart.NewWriter(&form)
	part, _ := writer.CreateFormFile("file", "invoice.txt")
	part.Write([]byte("Invoice 2026-014\nConsulting, February: 2,500.00 USD\n"))
	writer.WriteField("documentType", "BASIS")
	writer.Close()
	upload, err := api.UploadEntryDocumentWithBodyWithResponse(ctx, entry.Id, &finance.UploadEntryDocumentParams{WorkspaceId: workspaceID}, writer.FormDataContentType(), &form)
	check("upload document", err, upload.StatusCode(), 200, upload.Body)
	if upload.JSON200.DocumentName != "invoice.txt" || upload.JSON200.Status != finance.DocumentStatusUPLOADED {
		fail("upload document", "%s %s", upload.JSON200.DocumentName, upload.JSON200.Status)
	}
	step("upload document")

	csv, err := api.ExportEntriesCsvWithResponse(ctx, &finance.ExportEntriesCsvParams{WorkspaceId: workspaceID})
	check("download csv", err, csv.StatusCode(), 200, csv.Body)
	lines := strings.Split(strings.TrimSpace(string(csv.Body)), "\n")
	if !strings.HasPrefix(lines[0], "ID,Date,Type,Status,Amount") || len(lines) != 6 {
		fail("download csv", "%d lines: %q", len(lines), lines[0])
	}
	step("download csv")

	refund, err := api.RefundEntryWithResponse(ctx, entry.Id, nil, finance.RefundEntryJSONRequestBody{AmountCents: 250001})
	check("refund above amount", err, refund.StatusCode(), 409, refund.Body)
	if refund.JSON409 == nil || refund.JSON409.Code != "CONFLICT" {
		fail("refund above amount", "no typed 409 body: %s", string(refund.Body))
	}
	step("refund above amount is a typed 409")

	// a failed call's §2 error body {message, code, issues?} is the generated ErrorBody, one field per status
	missing, err := api.GetEntryWithResponse(ctx, 9007199254740991)
	check("missing entry", err, missing.StatusCode(), 404, missing.Body)
	if missing.JSON404 == nil || missing.JSON404.Code != "NOT_FOUND" || missing.JSON404.Message == "" {
		fail("missing entry", "no typed 404 body: %s", string(missing.Body))
	}
	step("a missing entry is a typed 404")

	endpoint, err := api.CreateWebhookEndpointWithResponse(ctx, nil, finance.CreateWebhookEndpointJSONRequestBody{WorkspaceId: workspaceID, Url: os.Getenv("HOOK_URL")})
	check("create webhook endpoint", err, endpoint.StatusCode(), 200, endpoint.Body)
	delivery, err := api.TestWebhookEndpointWithResponse(ctx, endpoint.JSON200.Id, nil)
	check("test webhook", err, delivery.StatusCode(), 200, delivery.Body)
	if delivery.JSON200.Status != finance.DeliveryStatusSUCCEEDED {
		fail("test webhook", "delivery %s", delivery.JSON200.Status)
	}
	res, err := http.Get(os.Getenv("HOOK_INBOX"))
	if err != nil {
		fail("webhook inbox", "%v", err)
	}
	var received struct {
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	json.NewDecoder(res.Body).Decode(&received)
	headers := http.Header{}
	for k, v := range received.Headers {
		headers.Set(k, v)
	}
	hook, err := standardwebhooks.NewWebhook(endpoint.JSON200.Secret)
	if err != nil {
		fail("webhook signature verified", "%v", err)
	}
	if err := hook.Verify([]byte(received.Body), headers); err != nil {
		fail("webhook signature verified", "%v", err)
	}
	if err := hook.Verify([]byte(received.Body+" "), headers); err == nil {
		fail("webhook signature verified", "a changed body verified")
	}
	var event finance.WebhookTestEvent
	if err := json.Unmarshal([]byte(received.Body), &event); err != nil || string(event.Type) != "webhook.test" || event.Id.String() != headers.Get("webhook-id") {
		fail("webhook signature verified", "event %v %v", event, err)
	}
	step("webhook signature verified")
	fmt.Println("walk passed")
}
