package walk;

import com.standardwebhooks.Webhook;
import finance.ApiClient;
import finance.ApiException;
import finance.ApiResponse;
import finance.api.AuthApi;
import finance.api.DocumentsApi;
import finance.api.EntriesApi;
import finance.api.ProjectsApi;
import finance.api.WebhooksApi;
import finance.api.WorkspacesApi;
import finance.model.CreateEntryRequest;
import finance.model.CreateProjectRequest;
import finance.model.CreateWebhookEndpointRequest;
import finance.model.CreateWorkspaceRequest;
import finance.model.DeliveryStatus;
import finance.model.Document;
import finance.model.DocumentStatus;
import finance.model.DocumentType;
import finance.model.Entry;
import finance.model.EntryPage;
import finance.model.EntryType;
import finance.model.ErrorBody;
import finance.model.LoginRequest;
import finance.model.Project;
import finance.model.RefundEntryRequest;
import finance.model.TokenResponse;
import finance.model.WebhookDelivery;
import finance.model.WebhookEndpointWithSecret;
import finance.model.WebhookTestEvent;
import finance.model.Workspace;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The walk of issue 30 through the Java client openapi-generator (java, okhttp-gson) generates from the
 * committed document. BASE_URL, EMAIL, PASSWORD, HOOK_URL, HOOK_INBOX come from the environment.
 * Prints one `ok <step>` line per step and `walk passed`; exits 1 naming the step that failed.
 */
public final class Walk {
  private static void step(String name) {
    System.out.println("ok " + name);
  }

  private static void fail(String name, Object detail) {
    System.err.println("walk FAILED: " + name + ": " + detail);
    System.exit(1);
  }

  private static String header(ApiResponse<?> response, String name) {
    return response.getHeaders().entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase(name))
        .flatMap(e -> e.getValue().stream())
        .findFirst()
        .orElse(null);
  }

  public static void main(String[] args) throws Exception {
    try {
      walk();
    } catch (ApiException e) {
      e.printStackTrace();
      fail("call", e.getCode() + " " + e.getResponseBody());
    }
    System.out.println("walk passed");
  }

  private static void walk() throws Exception {
    ApiClient client = new ApiClient();
    client.setBasePath(System.getenv("BASE_URL"));
    TokenResponse token =
        new AuthApi(client).login(new LoginRequest().email(System.getenv("EMAIL")).password(System.getenv("PASSWORD")), null);
    step("login");
    client.setBearerToken(token.getAccessToken());

    Workspace workspace =
        new WorkspacesApi(client).createWorkspace(new CreateWorkspaceRequest().name("Java client").baseCurrency("USD"), null);
    Project project =
        new ProjectsApi(client).createProject(new CreateProjectRequest().workspaceId(workspace.getId()).name("Operations"), null);
    step("create workspace and project");

    EntriesApi entries = new EntriesApi(client);
    String key = UUID.randomUUID().toString();
    CreateEntryRequest body =
        new CreateEntryRequest()
            .projectId(project.getId())
            .entryType(EntryType.INCOME)
            .amountCents(250_000L)
            .baseCurrency("USD")
            .entryDate(LocalDate.parse("2026-02-14"))
            .description("Consulting, February");
    ApiResponse<Entry> first = entries.createEntryWithHttpInfo(body, key);
    if (first.getStatusCode() != 200 || header(first, "Idempotency-Replayed") != null) fail("create entry", first.getStatusCode());
    Entry entry = first.getData();
    step("create entry with Idempotency-Key");
    ApiResponse<Entry> again = entries.createEntryWithHttpInfo(body, key);
    if (!"true".equals(header(again, "Idempotency-Replayed")) || !again.getData().getId().equals(entry.getId())) {
      fail("replay", header(again, "Idempotency-Replayed") + " " + again.getData().getId());
    }
    step("replay");

    for (int i = 0; i < 4; i++) {
      entries.createEntry(
          new CreateEntryRequest()
              .projectId(project.getId())
              .entryType(EntryType.EXPENSE)
              .amountCents(1_000L + i)
              .baseCurrency("USD")
              .entryDate(LocalDate.of(2026, 3, i + 1)),
          null);
    }
    Set<Long> seen = new HashSet<>();
    int pages = 0;
    String cursor = null;
    while (true) {
      EntryPage page =
          entries.listEntries(
              workspace.getId(), null, null, null, null, null, null, null, null, null, null, null, null, null, 2, null, cursor);
      pages++;
      page.getItems().forEach(e -> seen.add(e.getId()));
      if (page.getNextCursor() == null) break;
      cursor = page.getNextCursor();
    }
    if (seen.size() != 5 || pages != 3) fail("page by cursor", pages + " pages, " + seen);
    step("page by cursor");

    Path file = Files.createTempDirectory("walk").resolve("invoice.txt");
    Files.writeString(file, "Invoice 2026-014\nConsulting, February: 2,500.00 USD\n");
    Document document =
        new DocumentsApi(client).uploadEntryDocument(entry.getId(), workspace.getId(), file.toFile(), DocumentType.BASIS, null);
    if (!"invoice.txt".equals(document.getDocumentName()) || document.getStatus() != DocumentStatus.UPLOADED) {
      fail("upload document", document);
    }
    step("upload document");

    // the filters, then bom (CONTRACT: GET /entries/export/csv?bom=true adds a byte-order mark), all left out
    File csv =
        entries.exportEntriesCsv(workspace.getId(), null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    List<String> lines = Files.readString(csv.toPath(), StandardCharsets.UTF_8).strip().lines().collect(Collectors.toList());
    if (!lines.get(0).startsWith("ID,Date,Type,Status,Amount") || lines.size() != 6) fail("download csv", lines);
    step("download csv");

    try {
      entries.refundEntry(entry.getId(), new RefundEntryRequest().amountCents(250_001L), null);
      fail("refund above amount", "no error");
    } catch (ApiException e) {
      ErrorBody error = e.getErrorObject();
      if (e.getCode() != 409 || !"CONFLICT".equals(error.getCode())) fail("refund above amount", e.getCode() + " " + error);
    }
    step("refund above amount is a typed 409");

    // a failed call's §2 error body {message, code, issues?}: the generated ErrorBody, typed on the
    // exception (errorObjectType ErrorBody)
    try {
      entries.getEntry(9_007_199_254_740_991L);
      fail("missing entry", "no error");
    } catch (ApiException e) {
      ErrorBody error = e.getErrorObject();
      if (e.getCode() != 404 || !"NOT_FOUND".equals(error.getCode()) || error.getMessage().isEmpty()) {
        fail("missing entry", e.getCode() + " " + error);
      }
    }
    step("a missing entry is a typed 404");

    WebhooksApi webhooks = new WebhooksApi(client);
    WebhookEndpointWithSecret endpoint =
        webhooks.createWebhookEndpoint(
            new CreateWebhookEndpointRequest().workspaceId(workspace.getId()).url(URI.create(System.getenv("HOOK_URL"))), null);
    WebhookDelivery delivery = webhooks.testWebhookEndpoint(endpoint.getId(), null);
    if (delivery.getStatus() != DeliveryStatus.SUCCEEDED) fail("test webhook", delivery);
    HttpResponse<String> inbox =
        HttpClient.newHttpClient()
            .send(HttpRequest.newBuilder(URI.create(System.getenv("HOOK_INBOX"))).build(), HttpResponse.BodyHandlers.ofString());
    @SuppressWarnings("unchecked")
    Map<String, Object> received = client.getJSON().getGson().fromJson(inbox.body(), Map.class);
    @SuppressWarnings("unchecked")
    Map<String, String> sent = (Map<String, String>) received.get("headers");
    String payload = (String) received.get("body");
    HttpHeaders headers =
        HttpHeaders.of(sent.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> List.of(e.getValue()))), (a, b) -> true);
    Webhook hook = new Webhook(endpoint.getSecret());
    hook.verify(payload, headers);
    try {
      hook.verify(payload + " ", headers);
      fail("webhook signature verified", "a changed body verified");
    } catch (com.standardwebhooks.exceptions.WebhookVerificationException expected) {
      // the signature covers the body
    }
    WebhookTestEvent event = WebhookTestEvent.fromJson(payload);
    if (!event.getId().toString().equals(sent.get("webhook-id"))) fail("webhook signature verified", event);
    step("webhook signature verified");
  }

  private Walk() {}
}
