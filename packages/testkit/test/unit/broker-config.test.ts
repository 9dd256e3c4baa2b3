import { describe, expect, it } from 'vitest';
import {
  defaultBrokerSettings,
  escapeProperty,
  type NodeLayout,
  oauthJvmFlags,
  renderBrokerProperties,
} from '../../src/internal/broker-config.js';

const layout: NodeLayout[] = [
  { nodeId: 1, controllerPort: 21001, ports: { PLAINTEXT: 21011, SASL_SSL: 21021 } },
  { nodeId: 2, controllerPort: 21002, ports: { PLAINTEXT: 21012, SASL_SSL: 21022 } },
  { nodeId: 3, controllerPort: 21003, ports: { PLAINTEXT: 21013, SASL_SSL: 21023 } },
];

function parse(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const i = line.indexOf('=');
    out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

const security = {
  keystorePath: '/tmp/k.p12',
  keystorePassword: 'pw',
  caPemPath: '/tmp/ca.pem',
  users: [
    { username: 'admin', password: 'a1' },
    { username: 'alice', password: 'b2' },
  ],
  oauth: null,
};

describe('renderBrokerProperties', () => {
  it('renders a combined KRaft node with every voter and its own listeners', () => {
    const props = parse(
      renderBrokerProperties({
        nodeId: 2,
        layout,
        dataDir: '/data/2',
        listeners: ['PLAINTEXT'],
        security: null,
        acls: false,
        superUser: 'admin',
        brokerConfig: {},
      }),
    );
    expect(props.get('process.roles')).toBe('broker,controller');
    expect(props.get('node.id')).toBe('2');
    expect(props.get('controller.quorum.voters')).toBe(
      '1@127.0.0.1:21001,2@127.0.0.1:21002,3@127.0.0.1:21003',
    );
    expect(props.get('listeners')).toBe('PLAINTEXT://127.0.0.1:21012,CONTROLLER://127.0.0.1:21002');
    expect(props.get('advertised.listeners')).toBe('PLAINTEXT://127.0.0.1:21012');
    expect(props.get('offsets.topic.replication.factor')).toBe('3');
    expect(props.get('transaction.state.log.min.isr')).toBe('2');
    expect(props.get('group.initial.rebalance.delay.ms')).toBe('0');
    expect(props.get('auto.create.topics.enable')).toBe('false');
    expect(props.has('authorizer.class.name')).toBe(false);
  });

  it('lets brokerConfig override the defaults', () => {
    const props = parse(
      renderBrokerProperties({
        nodeId: 1,
        layout: layout.slice(0, 1),
        dataDir: '/d',
        listeners: ['PLAINTEXT'],
        security: null,
        acls: false,
        superUser: 'admin',
        brokerConfig: { 'auto.create.topics.enable': true, 'num.partitions': 4 },
      }),
    );
    expect(props.get('auto.create.topics.enable')).toBe('true');
    expect(props.get('num.partitions')).toBe('4');
    expect(props.get('offsets.topic.replication.factor')).toBe('1');
  });

  it('configures TLS, per-listener SASL JAAS and StandardAuthorizer for the secure variant', () => {
    const props = parse(
      renderBrokerProperties({
        nodeId: 1,
        layout,
        dataDir: '/d',
        listeners: ['PLAINTEXT', 'SASL_SSL'],
        security,
        acls: true,
        superUser: 'admin',
        brokerConfig: {},
      }),
    );
    expect(props.get('listeners')).toBe(
      'PLAINTEXT://127.0.0.1:21011,SASL_SSL://127.0.0.1:21021,CONTROLLER://127.0.0.1:21001',
    );
    expect(props.get('inter.broker.listener.name')).toBe('PLAINTEXT');
    expect(props.get('ssl.keystore.location')).toBe('/tmp/k.p12');
    expect(props.get('ssl.truststore.type')).toBe('PEM');
    expect(props.get('sasl.enabled.mechanisms')).toBe('SCRAM-SHA-256,SCRAM-SHA-512,PLAIN');
    expect(props.get('listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config')).toContain(
      'ScramLoginModule',
    );
    expect(props.get('listener.name.sasl_ssl.plain.sasl.jaas.config')).toBe(
      'org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="a1" user_alice="b2";',
    );
    expect(props.get('authorizer.class.name')).toBe(
      'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    );
    expect(props.get('super.users')).toBe('User:ANONYMOUS;User:admin');
    expect(props.get('allow.everyone.if.no.acl.found')).toBe('false');
  });

  it('refuses a TLS listener without certificates and a node outside the layout', () => {
    const base = {
      layout,
      dataDir: '/d',
      security: null,
      acls: false,
      superUser: 'admin',
      brokerConfig: {},
    };
    expect(() => renderBrokerProperties({ ...base, nodeId: 1, listeners: ['SSL'] })).toThrow(
      /security material/,
    );
    expect(() => renderBrokerProperties({ ...base, nodeId: 9, listeners: ['PLAINTEXT'] })).toThrow(
      /node 9/,
    );
  });
});

describe('defaultBrokerSettings', () => {
  it('never asks for more replicas than nodes', () => {
    expect(defaultBrokerSettings(1)['offsets.topic.replication.factor']).toBe(1);
    expect(defaultBrokerSettings(1)['transaction.state.log.min.isr']).toBe(1);
    expect(defaultBrokerSettings(3)['transaction.state.log.replication.factor']).toBe(3);
  });
});

describe('escapeProperty', () => {
  it('escapes backslashes and line breaks', () => {
    expect(escapeProperty('a\\b\nc\rd')).toBe('a\\\\b\\nc\\rd');
  });
});

describe('OAUTHBEARER on SASL listeners', () => {
  it("enables it with Kafka's JWT validator over the JWKS file, per listener, with sessions bounded by the token", () => {
    const oauth = {
      issuer: 'https://idp.invalid',
      audience: 'kafka',
      jwksPath: '/tmp/tls/jwks.json',
      privateKeyPemPath: '/tmp/tls/key.pem',
      keyId: 'k1',
    };
    const props = parse(
      renderBrokerProperties({
        nodeId: 1,
        layout,
        dataDir: '/d',
        listeners: ['PLAINTEXT', 'SASL_SSL'],
        security: { ...security, oauth },
        acls: false,
        superUser: 'admin',
        brokerConfig: {},
      }),
    );
    expect(props.get('sasl.enabled.mechanisms')).toBe(
      'SCRAM-SHA-256,SCRAM-SHA-512,PLAIN,OAUTHBEARER',
    );
    expect(props.get('sasl.oauthbearer.jwks.endpoint.url')).toBe('file:///tmp/tls/jwks.json');
    expect(props.get('sasl.oauthbearer.expected.issuer')).toBe('https://idp.invalid');
    expect(props.get('sasl.oauthbearer.expected.audience')).toBe('kafka');
    const prefix = 'listener.name.sasl_ssl.oauthbearer';
    expect(props.get(`${prefix}.sasl.server.callback.handler.class`)).toBe(
      'org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler',
    );
    expect(props.get(`${prefix}.connections.max.reauth.ms`)).toBe('3600000');
    expect(oauthJvmFlags(oauth)).toEqual([
      '-Dorg.apache.kafka.sasl.oauthbearer.allowed.files=/tmp/tls/jwks.json',
      '-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=file:///tmp/tls/jwks.json',
    ]);
    expect(oauthJvmFlags(null)).toEqual([]);
  });
});
