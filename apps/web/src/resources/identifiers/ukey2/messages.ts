// UKEY2 keys (/ukey2): the view-only pages of spec entities §2 (list, and /ukey2/:id/edit to read one).
export const en = {
  resources: {
    ukey2: {
      name: 'UKEY2 key |||| UKEY2 keys',
      fields: {
        id: 'ID',
        name: 'Name',
        value: 'Key',
        owner: 'Owner',
        is_active: 'State',
        is_revoked: 'Revoked',
        period: 'Valid',
        description: 'Description',
        created_at: 'Issued',
        updated_at: 'Changed',
        revoked_at: 'Revoked at',
        access_rules: 'Access rules',
        search: 'Search',
      },
    },
  },
  ukey2: {
    title: 'UKEY2 keys',
    key_title: 'UKEY2 key %{name}',
    view_only: 'UKEY2 keys are issued and revoked under Identifiers; this page only shows them.',
    nobody: 'No owner',
    none: '—',
    rules: '%{smart_count} access rule |||| %{smart_count} access rules',
  },
};

export const ru: typeof en = {
  resources: {
    ukey2: {
      name: 'Ключ UKEY2 |||| Ключи UKEY2',
      fields: {
        id: 'ID',
        name: 'Название',
        value: 'Ключ',
        owner: 'Владелец',
        is_active: 'Состояние',
        is_revoked: 'Отозван',
        period: 'Действует',
        description: 'Описание',
        created_at: 'Выдан',
        updated_at: 'Изменён',
        revoked_at: 'Отозван',
        access_rules: 'Правила доступа',
        search: 'Поиск',
      },
    },
  },
  ukey2: {
    title: 'Ключи UKEY2',
    key_title: 'Ключ UKEY2 %{name}',
    view_only: 'Ключи UKEY2 выдаются и отзываются в разделе «Идентификаторы»; здесь их можно только просмотреть.',
    nobody: 'Без владельца',
    none: '—',
    rules: '%{smart_count} правило доступа |||| %{smart_count} правила доступа |||| %{smart_count} правил доступа',
  },
};
