#!/usr/bin/perl
# Issue 30: a smoke walk of Perl's OpenAPI::Client (Debian libopenapi-client-perl) on the committed
# OAS 3.0 rendition, openapi-3.0.json: the client reads the document, validates each request
# against it and calls the operations by operationId. BASE_URL, EMAIL, PASSWORD and SPEC come from
# the environment. Prints `ok <step>` per step and `smoke passed`; exits 1 naming the failed step.
use strict;
use warnings;
use OpenAPI::Client;
use Mojo::URL;

sub step { print "ok $_[0]\n" }
sub fail { print STDERR "smoke FAILED: $_[0]: $_[1]\n"; exit 1 }

sub expect_status {
  my ($name, $tx, $status) = @_;
  my $code = $tx->res->code // 'no answer';
  fail($name, "expected $status, got $code " . ($tx->res->body // '') . ' ' . join(' ', map { $_->{message} } @{ $tx->error ? [$tx->error] : [] }))
    unless $code eq $status;
  return $tx->res->json;
}

my $client = OpenAPI::Client->new('file://' . $ENV{SPEC}, base_url => Mojo::URL->new($ENV{BASE_URL}));
my $token;
$client->ua->on(start => sub {
  my (undef, $tx) = @_;
  $tx->req->headers->authorization("Bearer $token") if defined $token;
});

my $login = expect_status('login', $client->login({}, json => { email => $ENV{EMAIL}, password => $ENV{PASSWORD} }), 200);
$token = $login->{access_token};
step('login');

my $ws = expect_status('createWorkspace', $client->createWorkspace({}, json => { name => 'Perl client', baseCurrency => 'USD' }), 200);
my $project = expect_status('createProject', $client->createProject({}, json => { workspaceId => $ws->{id}, name => 'Operations' }), 200);
step('create workspace and project');

my $key = 'perl-smoke-' . time . "-$$";
my %body = (projectId => $project->{id}, entryType => 'INCOME', amountCents => 250000, baseCurrency => 'USD', entryDate => '2026-02-14');
my $first = $client->createEntry({ 'Idempotency-Key' => $key }, json => \%body);
my $entry = expect_status('createEntry', $first, 200);
my $again = $client->createEntry({ 'Idempotency-Key' => $key }, json => \%body);
expect_status('createEntry replay', $again, 200);
fail('replay', 'not replayed') unless ($again->res->headers->header('Idempotency-Replayed') // '') eq 'true' && $again->res->json->{id} == $entry->{id};
step('create entry with Idempotency-Key');

my $page = expect_status('listEntries', $client->listEntries({ workspaceId => $ws->{id}, limit => 10 }), 200);
fail('listEntries', "total $page->{total}") unless $page->{total} == 1 && $page->{items}[0]{id} == $entry->{id};
step('list entries');

my $refused = $client->refundEntry({ id => $entry->{id} }, json => { amountCents => 250001 });
my $error = expect_status('refundEntry', $refused, 409);
fail('refundEntry', $error->{code}) unless $error->{code} eq 'CONFLICT';
step('refund above amount is a 409');

my $missing = expect_status('getEntry', $client->getEntry({ id => $entry->{id} + 1000000 }), 404);
step('unknown entry is a 404');
print "smoke passed\n";
