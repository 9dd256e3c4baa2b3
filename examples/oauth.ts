// Connecting with SASL/OAUTHBEARER to a cluster that validates tokens from an OAuth/OIDC
// provider, as the client README shows it. Build with `npx tsc -b examples`, then:
//   CLIENT_SECRET=... node examples/dist/oauth.js broker:9093 https://idp/oauth2/token orders-service orders
import { Cluster, oauthClientCredentials, Producer } from '@kafkats/client';

const [bootstrap = '127.0.0.1:9093', tokenEndpointUrl = '', clientId = '', topic = 'orders'] =
  process.argv.slice(2);

// #region readme
const cluster = await Cluster.connect(bootstrap, {
  connection: {
    // tls: { ca: readFileSync('ca.pem') }, // in production, OAUTHBEARER goes over TLS
    sasl: {
      mechanism: 'OAUTHBEARER',
      // Fetches a token with the client credentials grant, caches it, and fetches the next one
      // before it expires; every connection re-authenticates with it in place (KIP-368).
      tokenProvider: oauthClientCredentials({
        tokenEndpointUrl,
        clientId,
        clientSecret: process.env.CLIENT_SECRET ?? '',
      }),
    },
  },
});
const producer = new Producer(cluster);
const delivered = await producer.send({ topic, key: 'order-1', value: 'paid' });
console.log(`delivered to ${delivered.topic}-${delivered.partition} at offset ${delivered.offset}`);
await producer.close();
await cluster.close();
// #endregion readme
