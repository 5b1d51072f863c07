import { GraphQLError, type ValidationRule } from 'graphql';

/**
 * Refuses the fields that describe the schema (`__schema` and `__type`; a subgraph port adds
 * federation's `_service`) when GRAPHQL_INTROSPECTION is not true, with a message naming that
 * setting (Apollo Server's own rule tells users to "pass introspection: true to ApolloServer").
 * `__typename` stays allowed: clients need it and it reveals nothing.
 */
export function noIntrospection(fields: readonly string[] = ['__schema', '__type']): ValidationRule {
  return (context) => ({
    Field(field) {
      if (fields.includes(field.name.value)) {
        context.reportError(new GraphQLError('introspection is disabled on this server: set GRAPHQL_INTROSPECTION=true to enable it', { nodes: [field] }));
      }
    },
  });
}

/**
 * A message without graphql-js's "Did you mean …?": with introspection off it would name fields,
 * arguments and enum values the schema otherwise hides. Validation errors and variable coercion
 * errors (`Variable "$f" got invalid value …; … Did you mean "conditions"?`) end with it.
 */
export function withoutSuggestions(message: string): string {
  return message.replace(/ ?Did you mean(.+?)\?$/, '');
}
